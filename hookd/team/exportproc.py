"""The exporter's own process: reads the journal (the outbox) and publishes it, away from the daemon.

The daemon starts it with ``python -m hookd.team.exportproc`` and talks to it over
two pipes. On stdin the daemon writes one JSON line: the team settings, the
journal's path, the state directory and the newest seq it knows. On stdout this
process writes JSON lines back: ``{"t": "status", ...}`` when the export's state,
acknowledged seq or error changes (at most every STATUS_EVERY), and
``{"t": "event", "point": ..., "data": ...}`` for what the bus must hear
(``hookd.export.*``). Logs go to stderr, the daemon's.

stdin ends when the daemon closes it or dies, SIGKILL included: the exporter
records what the server acknowledged and exits, so a daemon restarted after a
crash never has two exporters sending. The record's lock makes the next one wait
for the last to finish.

Why a process: nats-py, the JSON of the batches and the journal reads cost
interpreter time, and on the daemon's loop every slice of it is a slice a decide
waits for. Here they only cost a core the daemon may not be using, at a lower
priority than the daemon's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import fcntl
import json
import os
import signal
import sys
import threading
import traceback
from typing import IO, Any

import structlog

from hookd.team.settings import Credentials, OtelSettings, TeamSettings

log = structlog.get_logger("hookd.team")

STATUS_EVERY = 0.1  # seconds between status lines while the export moves
NICE = 10  # the exporter yields the CPU to the daemon (and its hooks) when both want it
EXIT_GRACE = 3.0  # seconds for the export to stop, and again for its connection to close, once told to stop
CANCEL_AGAIN = 0.1  # seconds between cancellations of an export that has not stopped yet


def settings_to_json(s: TeamSettings) -> dict[str, Any]:
    return dataclasses.asdict(s)


def settings_from_json(data: dict[str, Any]) -> TeamSettings:
    data = dict(data)
    data["credentials"] = Credentials(**data.get("credentials") or {})
    if data.get("otel") is not None:
        data["otel"] = OtelSettings(**data["otel"])
    return TeamSettings(**data)


class Reporter:
    """Writes status and event lines to the daemon; a status line only when something changed."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.last: dict[str, Any] = {}

    def write(self, line: dict[str, Any]) -> None:
        try:
            self.out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
            self.out.flush()
        except (BrokenPipeError, ValueError):
            pass  # the daemon is gone: stdin ends too, and the process with it

    def status_line(self, status: dict[str, Any]) -> None:
        if status != self.last:
            self.last = status
            self.write({"t": "status", **status})

    def event(self, point: str, data: dict[str, Any]) -> None:
        self.write({"t": "event", "point": point, "data": data})

    def status(self, exporter: Any) -> None:
        link = exporter.link
        state = exporter.state
        if state == "connecting" and link.error:
            state = "failing"  # never connected yet, and the server does not answer: nothing can be exported now
        status = {
            "t": "status",
            "state": state,
            "identity": exporter.record.identity,
            "acked": exporter.record.acked,
            "published": exporter.published,
            "missed": exporter.outbox.missed if exporter.outbox else 0,
            "error": exporter.error or (link.error if exporter.state == "connecting" else ""),
        }
        if status != self.last:
            self.last = status
            self.write(status)


def hold_lock(state_dir: str, name: str = "export.lock") -> int:
    """The record's lock, held for the process's life: an exporter left by a killed daemon finishes first."""
    directory = os.path.join(state_dir, "team")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(directory, name), os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


async def _until_told_to_stop() -> None:
    """Returns when stdin ends (the daemon closed it, or died) or SIGTERM came (a service manager's stop)."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)

    async def drain() -> None:
        while await reader.read(4096):
            pass
        stop.set()

    task = asyncio.ensure_future(drain())
    try:
        await stop.wait()
    finally:
        task.cancel()


async def _cancelled_within(task: asyncio.Future[Any], within: float) -> bool:
    """Whether ``task`` ended within ``within`` seconds, cancelled again every CANCEL_AGAIN.

    Never waits for a cancellation to be honoured: the NATS client swallows one that lands while
    it waits for room to write, so a single cancel and an unbounded wait can hang for good.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not task.done():
        left = deadline - loop.time()
        if left <= 0:
            return False
        task.cancel()
        await asyncio.wait({task}, timeout=min(CANCEL_AGAIN, left))
    return True


def _exit_anyway(after: float) -> None:
    """Ends the process ``after`` seconds from now, whatever its loop is doing.

    An exporter left running holds the record's lock, and the next daemon's exporter waits for it:
    past the grace, leaving is the lesser harm. The server drops what is sent again under the
    same message ids, and the record says what it acknowledged up to the last save.
    """

    def go() -> None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os._exit(0)

    timer = threading.Timer(after, go)
    timer.daemon = True
    timer.start()


async def serve(config: dict[str, Any], reporter: Reporter) -> None:
    from hookd.team.exporter import Exporter
    from hookd.team.link import Link

    settings = settings_from_json(config["settings"])
    link = Link(settings, name=f"hookd export {settings.host}/{settings.user}")
    newest = int(config["newest"])
    exporter = Exporter(settings, link, config["journal"], config["state_dir"], lambda: newest, reporter.event)
    exporter.start_state()
    reporter.status(exporter)
    work = asyncio.ensure_future(exporter.run())
    told = asyncio.ensure_future(_until_told_to_stop())
    try:
        while not told.done() and not work.done():
            await asyncio.wait({told, work}, timeout=STATUS_EVERY)
            reporter.status(exporter)
    finally:
        # The process's last moments are bounded too: the loop's own teardown waits for every task.
        _exit_anyway(2 * EXIT_GRACE + 1)
        exporter.stopping = True
        told.cancel()
        if not await _cancelled_within(work, EXIT_GRACE):
            log.warning("the export did not stop in time; closing its connection under it", grace=EXIT_GRACE)
        exporter.stop()
        closed, _ = await asyncio.wait({asyncio.ensure_future(link.close())}, timeout=EXIT_GRACE)
        if not closed:
            log.warning("the connection to the team's server did not close in time", grace=EXIT_GRACE)
    if work.done() and not work.cancelled() and (exc := work.exception()) is not None:
        raise exc


def forward_logs(reporter: Reporter) -> None:
    """The exporter's log entries go to the daemon, which logs them its way (level, format, log file)."""

    def forward(logger: Any, name: str, event_dict: Any) -> Any:
        entry = {k: v if isinstance(v, (str, int, float, bool)) or v is None else str(v) for k, v in event_dict.items()}
        exc = event_dict.get("exc_info")
        if exc:
            entry["exc_info"] = "".join(traceback.format_exception(*sys.exc_info())) if exc is True else str(exc)
        reporter.write({"t": "log", "level": name, "entry": entry})
        raise structlog.DropEvent

    structlog.configure(processors=[forward], logger_factory=structlog.PrintLoggerFactory(file=sys.stderr), cache_logger_on_first_use=False)


def started() -> tuple[dict[str, Any], Reporter] | None:
    """An exporter process's start (this one's and the OpenTelemetry one's): its config, read from
    stdin, and its reporter on stdout, its logs forwarded to the daemon; None when the daemon went
    before it said what to export."""
    # The daemon stops an exporter by closing stdin; a Ctrl-C meant for a daemon in a terminal is not for it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICE)
    config = json.loads(sys.stdin.buffer.readline() or b"{}")
    if not config:
        return None
    reporter = Reporter(sys.stdout.buffer)
    forward_logs(reporter)
    return config, reporter


def main() -> int:
    start = started()
    if start is None:
        return 0
    config, reporter = start
    hold_lock(config["state_dir"])
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        runner(serve(config, reporter))
    except Exception as exc:
        log.exception("the exporter failed")
        reporter.write({"t": "status", "state": "failing", "error": f"the exporter failed: {type(exc).__name__}: {exc}"})
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
