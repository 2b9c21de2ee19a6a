"""The OpenTelemetry exporter's own process: journal events as spans, sent over OTLP/HTTP.

Started and supervised by the daemon exactly like the NATS exporter
(exportproc.py: one JSON line of configuration on stdin, status, event and log
lines on stdout, stdin's end or SIGTERM to stop). It reads the journal from the
last seq the collector accepted (``<state dir>/team/otel.json``), turns a batch
of events into spans (otelspans.py) and sends them with the SDK's OTLP/HTTP span
exporter; the record moves on only when the collector accepted the batch, and a
batch refused or not answered is sent again, whole, with a growing pause. Spans
have no message id: a hookd killed between the collector's answer and the record
sends that batch again.

Needs the ``otel`` extra (``pip install 'hookd[otel]'``); without it the process
says so in its status and the bus hears ``hookd.otel.failing``.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
import time
from typing import Any, cast

import msgspec
import structlog

from hookd.config.statefiles import StateFileError, read_json, write_json
from hookd.team.exportproc import Reporter, hold_lock, settings_from_json, started
from hookd.team.outbox import Outbox

log = structlog.get_logger("hookd.team")

IDLE_POLL = 0.2  # seconds between looks at the journal when everything is sent
RETRY_FIRST = 0.25
RETRY_MAX = 10.0
REQUEST_TIMEOUT = 10.0  # seconds for one export request
RECORD_EVERY = 0.5


class OtelExporter:
    def __init__(self, config: dict[str, Any], reporter: Reporter, stop: threading.Event) -> None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace.export import SpanExportResult

        from hookd.team.otelspans import SpanBuilder

        settings = settings_from_json(config["settings"])
        assert settings.otel is not None
        self.otel = settings.otel
        self.reporter = reporter
        self.stop = stop
        self.path = os.path.join(config["state_dir"], "team", "otel.json")
        self.acked = self._load(int(config["newest"]))
        self.outbox = Outbox(config["journal"], self.acked)
        self.builder = SpanBuilder(self.otel.service_name, settings.host, settings.user)
        self.success = SpanExportResult.SUCCESS
        self.exporter = OTLPSpanExporter(endpoint=self.otel.endpoint, headers=self.otel.headers or None, timeout=REQUEST_TIMEOUT)
        self.state = "connecting"
        self.error = ""
        self.sent = 0
        self._recorded = self.acked
        self._last_record = 0.0

    def _load(self, newest: int) -> int:
        try:
            data = read_json(self.path) or {}
        except StateFileError as exc:
            log.error("OpenTelemetry record unreadable; sending from the start of the journal", error=str(exc))
            data = {}
        acked = data.get("acked")
        # A record ahead of the journal: the journal was reset and its seqs start again.
        return acked if isinstance(acked, int) and 0 <= acked <= newest else 0

    def _record(self, force: bool = False) -> None:
        now = time.monotonic()
        if self.acked == self._recorded or (not force and now - self._last_record < RECORD_EVERY):
            return
        try:
            write_json(self.path, {"version": 1, "acked": self.acked})
            self._recorded, self._last_record = self.acked, now
        except OSError as exc:
            log.error("cannot record the seq the collector accepted; spans may be sent again after a restart", error=str(exc))

    def status(self) -> None:
        self.reporter.status_line({"state": self.state, "acked": self.acked, "published": self.sent, "error": self.error})

    def run(self) -> None:
        pause = RETRY_FIRST
        batch: list[Any] = []  # spans built and not accepted yet
        last = self.acked  # the newest seq those spans come from
        while not self.stop.is_set():
            if not batch:
                lines = self.outbox.read(self.otel.batch)
                for gap in self.outbox.gaps:
                    self.reporter.event("hookd.otel.gap", {"first": gap[0], "last": gap[1], "missed": gap[1] - gap[0] + 1})
                self.outbox.gaps.clear()
                if not lines:
                    if self.state == "connecting":
                        self._working()
                    self._record(force=True)
                    self.status()
                    self.stop.wait(IDLE_POLL)
                    continue
                events = []
                for line in lines:
                    with contextlib.suppress(msgspec.DecodeError):
                        events.append(msgspec.json.decode(line.data))
                for event in events:
                    self.builder.add(event)
                batch, last = self.builder.take(), lines[-1].seq
                if not batch:
                    self.acked = last  # nothing in these events makes a span
                    continue
            try:
                ok = self.exporter.export(batch) == self.success
                why = "the collector refused the spans or did not answer"
            except Exception as exc:  # the exporter reports failures as a result; anything else is one too
                ok, why = False, f"{type(exc).__name__}: {exc}"
            if ok:
                self.sent += len(batch)
                batch, self.acked = [], last
                pause = RETRY_FIRST
                self._working()
                self._record()
            else:
                self._failed(why)
                self.stop.wait(pause)
                pause = min(RETRY_MAX, pause * 2)
            self.status()
        self._record(force=True)
        self.status()

    def _working(self) -> None:
        if self.state == "exporting":
            return
        resumed = self.state == "failing"
        self.state, self.error = "exporting", ""
        self.reporter.event(
            "hookd.otel.resumed" if resumed else "hookd.otel.started", {"endpoint": self.otel.endpoint, "acked": self.acked}
        )

    def _failed(self, why: str) -> None:
        if self.state == "failing" and why == self.error:
            return
        first = self.state != "failing"
        self.state, self.error = "failing", why
        if first:
            log.warning("OpenTelemetry export failing; the journal keeps the events until the collector takes them", error=why)
            self.reporter.event("hookd.otel.failing", {"endpoint": self.otel.endpoint, "acked": self.acked, "error": why})

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.exporter.shutdown()  # type: ignore[no-untyped-call]
        with contextlib.suppress(Exception):
            self.builder.shutdown()
        self.outbox.close()


def _watch_stdin(stop: threading.Event) -> None:
    with contextlib.suppress(OSError, ValueError):
        while cast(io.BufferedReader, sys.stdin.buffer).read1(4096):
            pass
    stop.set()


def main() -> int:
    start = started()
    if start is None:
        return 0
    config, reporter = start
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=_watch_stdin, args=(stop,), daemon=True, name="stdin").start()
    hold_lock(config["state_dir"], "otel.lock")
    try:
        exporter = OtelExporter(config, reporter, stop)
    except ImportError as exc:
        why = f"the OpenTelemetry packages are not installed (pip install 'hookd[otel]'): {exc}"
        reporter.status_line({"state": "failing", "error": why})
        reporter.event("hookd.otel.failing", {"error": why})
        stop.wait()  # not restarted in a loop: the daemon's status keeps saying why until it stops
        return 0
    try:
        exporter.run()
    finally:
        exporter.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
