"""Export: every journal line published to the team's JetStream stream.

The journal is the outbox. The exporter reads it forward from the last seq the
server acknowledged (recorded in ``<state dir>/team/export.json``), publishes a
batch with one message id per event (``<daemon identity>:<seq>``, so the
server drops an event it already stored), waits for the acknowledgements and
moves the record on by the acknowledged prefix. A batch that fails is sent
again, whole, once the server answers again; hookd killed before it recorded an
acknowledgement sends a few events again, and the server drops them as
duplicates. Nothing here runs in the daemon: the bus writes the journal, and
the exporter, in a process of its own (exportproc.py), reads it at its own pace.

Subject: ``hookd.<host>.<user>.<point>``. Body: the event's JSON as the journal
holds it. Headers: ``Hookd-Daemon`` (identity), ``Hookd-Seq``, ``Hookd-Host``,
``Hookd-User``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog

from hookd.config.statefiles import StateFileError, read_json, write_json
from hookd.team.link import Link
from hookd.team.outbox import Line, Outbox
from hookd.team.settings import TeamSettings, subject_token

log = structlog.get_logger("hookd.team")

YIELD_EVERY = 16  # publishes between yields to the event loop
READ_SLICE = 32  # journal lines read between yields to the event loop
IDLE_POLL = 0.1  # seconds between looks at the journal when everything is exported
ACK_WAIT = 5.0  # seconds a batch waits for its acknowledgements
RETRY_FIRST = 0.25
RETRY_MAX = 5.0
RECORD_EVERY = 0.5  # seconds between records of the acknowledged seq while busy
DUPLICATE_WINDOW = 3600.0  # seconds; the stream `python -m hookd.team init` makes drops repeats this long


class ExportState:
    """The exporter's record: who this daemon is to the stream, and what the server has."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.identity = ""
        self.acked = 0

    def load(self, host: str, newest: int) -> tuple[bool, str | None]:
        """Read the record; (whether the identity is new, why the record could not be read)."""
        error = None
        try:
            data = read_json(self.path) or {}
        except StateFileError as exc:
            data, error = {}, str(exc)
        identity = data.get("identity")
        acked = data.get("acked")
        if isinstance(identity, str) and identity and isinstance(acked, int) and 0 <= acked <= newest:
            self.identity, self.acked = identity, acked
            return False, error
        # No record, or one ahead of the journal (the journal was reset and its seqs start
        # again): a new identity, so the new seqs' message ids never collide with the old ones.
        self.identity = f"{subject_token(host)}-{secrets.token_hex(6)}"
        self.acked = 0
        return True, error

    def save(self) -> None:
        write_json(self.path, {"version": 1, "identity": self.identity, "acked": self.acked})


class Exporter:
    def __init__(
        self,
        settings: TeamSettings,
        link: Link,
        journal_path: str,
        state_dir: str,
        newest: Callable[[], int],
        publish: Callable[[str, dict[str, Any]], None],
    ) -> None:
        self.settings = settings
        self.link = link
        self.journal_path = journal_path
        self.newest = newest
        self.publish = publish
        self.record = ExportState(os.path.join(state_dir, "team", "export.json"))
        self.outbox: Outbox | None = None
        self.pending: deque[Line] = deque()
        self.state = "connecting"
        self.error = ""
        self.published = 0
        # Set when the process is told to stop. The NATS client swallows a cancellation that lands
        # while it waits for room to write (and goes on publishing), so the pump looks at this too.
        self.stopping = False
        self.duplicates = 0
        self._failing_since: float | None = None
        self._recorded = 0
        self._last_record = 0.0

    def start_state(self) -> None:
        new, error = self.record.load(self.settings.host, self.newest())
        if error:
            log.error("export record unreadable; exporting from the start of the journal", error=error)
        if new:
            # The identity is on disk before the first publish: the server may store events whose
            # acknowledgements never come back, and an exporter started after a crash must send them
            # again under the same message ids for the server to drop them.
            try:
                self.record.save()
            except OSError as exc:
                log.error("cannot record the export's identity; a restart may store events twice", error=str(exc))
        self._recorded = self.record.acked
        self.outbox = Outbox(self.journal_path, self.record.acked)

    # ------------------------------------------------------------------- run

    async def run(self) -> None:
        if self.outbox is None:
            self.start_state()
        pause = RETRY_FIRST
        while not self.stopping:
            try:
                nc = await self.link.connect()
                await self._ensure_stream(nc.jetstream(timeout=ACK_WAIT))
                await self._pump(nc)
            except asyncio.CancelledError:
                self._record(force=True)
                raise
            except Exception as exc:
                self._failed(exc)
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)
            else:
                pause = RETRY_FIRST

    async def _ensure_stream(self, js: Any) -> None:
        from nats.js.errors import NotFoundError

        try:
            await js.stream_info(self.settings.stream)
        except NotFoundError:
            if not self.settings.create_stream:
                raise ExportError(
                    f"the stream {self.settings.stream!r} does not exist on the server "
                    "(the team creates it: `python -m hookd.team init`; or set create_stream = true under [export])"
                ) from None
            await js.add_stream(**stream_config(self.settings.stream))

    async def _pump(self, nc: Any) -> None:
        outbox = self.outbox
        assert outbox is not None
        prefix = self.settings.subject_prefix
        identity = self.record.identity
        host, user = self.settings.host, self.settings.user
        subjects: dict[str, str] = {}
        acks = Acks()
        # One inbox for every acknowledgement, each reply subject ending in the event's seq: far less
        # work per event than a request (a future and a fresh inbox token) each.
        inbox = nc.new_inbox()
        sub = await nc.subscribe(f"{inbox}.*", cb=acks.got)
        self.link.on_disconnect.append(acks.lost)
        try:
            while not self.stopping:
                while len(self.pending) < self.settings.batch:
                    # Read a slice at a time, yielding between slices so the process's status and
                    # its stop (stdin's end) are heard while a large backlog drains.
                    got = outbox.read(min(READ_SLICE, self.settings.batch - len(self.pending)))
                    self.pending.extend(got)
                    if len(got) < READ_SLICE:
                        break
                    await asyncio.sleep(0)
                self._report_gaps(outbox)
                if not self.pending:
                    self._working()
                    await self._record_soon()
                    await asyncio.sleep(IDLE_POLL)
                    continue
                batch = list(self.pending)
                acks.expect(len(batch))
                for n, line in enumerate(batch, 1):
                    headers = {
                        "Nats-Msg-Id": f"{identity}:{line.seq}",
                        "Hookd-Daemon": identity,
                        "Hookd-Seq": str(line.seq),
                        "Hookd-Host": host,
                        "Hookd-User": user,
                    }
                    subject = subjects.get(line.point)
                    if subject is None:
                        subject = subjects[line.point] = f"{prefix}.{point_subject(line.point)}"
                    await nc.publish(subject, line.data, reply=f"{inbox}.{line.seq}", headers=headers)
                    if self.stopping:
                        return  # what was sent unacknowledged is sent again by the next exporter, under the same ids
                    if n % YIELD_EVERY == 0:
                        await asyncio.sleep(0)  # let acknowledgements in between pieces of a batch
                await acks.wait(ACK_WAIT)
                failure = ""
                for line in batch:
                    answer = acks.answers.get(line.seq)
                    if answer is None:
                        failure = acks.why or f"no acknowledgement within {ACK_WAIT:g} s"
                        break
                    if b'"seq"' not in answer or b'"error"' in answer:
                        failure = _ack_error(answer)
                        break
                    if b'"duplicate":true' in answer:
                        self.duplicates += 1
                    else:
                        self.published += 1
                    self.record.acked = line.seq
                    self.pending.popleft()
                await self._record_soon()
                if failure:
                    raise ExportError(failure)
                self._working()
        finally:
            with contextlib.suppress(ValueError):
                self.link.on_disconnect.remove(acks.lost)
            if not self.stopping:  # when stopping the connection closes anyway, and a write may wait on a stuck server
                with contextlib.suppress(Exception):
                    await sub.unsubscribe()

    def _report_gaps(self, outbox: Outbox) -> None:
        while outbox.gaps:
            first, last = outbox.gaps.pop(0)
            self.publish("hookd.export.gap", {"first": first, "last": last, "missed": last - first + 1, "stream": self.settings.stream})

    # --------------------------------------------------------------- states

    def _working(self) -> None:
        if self.state == "exporting":
            return
        was_failing = self._failing_since
        self.state, self.error, self._failing_since = "exporting", "", None
        data: dict[str, Any] = {"stream": self.settings.stream, "acked": self.record.acked, "identity": self.record.identity}
        if was_failing is not None:
            data["down_for"] = round(time.monotonic() - was_failing, 3)
        self.publish("hookd.export.resumed" if was_failing is not None else "hookd.export.started", data)

    def _failed(self, exc: BaseException) -> None:
        text = _describe(exc)
        if self.state == "failing" and text == self.error:
            return
        first = self.state != "failing"
        self.state, self.error = "failing", text
        if first:
            self._failing_since = time.monotonic()
            log.warning("export failing; the journal keeps the events until the server takes them", error=text)
            self.publish("hookd.export.failing", {"stream": self.settings.stream, "acked": self.record.acked, "error": text})

    async def _record_soon(self) -> None:
        """Record the acknowledged seq, at most every RECORD_EVERY while busy; the write (an fsync) runs in a thread."""
        if self.record.acked == self._recorded:
            return
        now = time.monotonic()
        if self.pending and now - self._last_record < RECORD_EVERY:
            return
        acked = self.record.acked
        try:
            await asyncio.to_thread(self.record.save)
            self._recorded = acked
            self._last_record = now
        except OSError as exc:
            log.error("cannot record the exported seq; events may be sent again after a restart", error=str(exc))

    def _record(self, force: bool = False) -> None:
        if self.record.acked == self._recorded:
            return
        try:
            self.record.save()
            self._recorded = self.record.acked
        except OSError as exc:
            log.error("cannot record the exported seq; events may be sent again after a restart", error=str(exc))

    def stop(self) -> None:
        self._record(force=True)
        if self.outbox is not None:
            self.outbox.close()


class ExportError(Exception):
    pass


class Acks:
    """The server's answers to one batch, by seq; done when all came or the connection went."""

    def __init__(self) -> None:
        self.answers: dict[int, bytes] = {}
        self.want = 0
        self.why = ""
        self.done = asyncio.Event()

    def expect(self, n: int) -> None:
        self.answers.clear()
        self.want = n
        self.why = ""
        self.done.clear()

    async def got(self, msg: Any) -> None:
        try:
            seq = int(msg.subject.rpartition(".")[2])
        except ValueError:
            return
        self.answers[seq] = bytes(msg.data) or _status(msg)
        if len(self.answers) >= self.want:
            self.done.set()

    async def lost(self) -> None:
        self.why = "the connection to the server was lost"
        self.done.set()

    async def wait(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self.done.wait()


def _status(msg: Any) -> bytes:
    """An empty answer is a status message (503: no stream listens on the subject)."""
    headers = getattr(msg, "headers", None) or {}
    status = headers.get("Status", "") if isinstance(headers, dict) else ""
    return f'{{"error":"status {status or "?"}: no stream takes these subjects"}}'.encode()


def _ack_error(answer: bytes) -> str:
    try:
        data = json.loads(answer)
    except ValueError:
        return f"unexpected answer: {answer[:200]!r}"
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return f"the server refused an event: {error.get('description') or error}"
    return f"the server refused an event: {error or data}"


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def point_subject(point: str) -> str:
    return ".".join(subject_token(t) for t in point.split("."))


def stream_config(name: str) -> dict[str, Any]:
    return {"name": name, "subjects": ["hookd.>"], "duplicate_window": DUPLICATE_WINDOW}
