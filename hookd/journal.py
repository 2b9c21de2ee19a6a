"""The audit journal: events as JSON lines on disk, written by a background thread.

The event loop only appends ``(seq, frame)`` to a deque (thread-safe for one
producer and one consumer); a writer thread wakes, waits a moment so events
arrive in batches, turns the frames into JSON lines and writes. So an emitter
never waits for the disk. Files rotate by size (journal_files.py); a line never
straddles two files.

A write that fails part-way (a full disk, a file size limit) never leaves a torn
line: the file is cut back to the end of its last complete line, the events not
written are counted as lost, and the bus hears ``hookd.journal.failed`` when it
starts failing and ``hookd.journal.lost`` (how many, which seqs, why) once
writes work again. A torn end left by a crash is cut off at start.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
from hookd_client.framing import HEADER
from hookd_client.messages import Event

from .journal_files import cut_torn_end, default_path, files, last_event, read

__all__ = ["BATCH", "Journal", "default_path", "files", "last_event", "read"]

log = structlog.get_logger("hookd.journal")

Notify = Callable[[str, dict[str, Any]], None]

BATCH_DELAY = 0.05  # seconds the writer waits after waking, so one write carries many events
CHUNK = 1 << 20  # bytes encoded before a write
BATCH = 512  # events encoded in one call
# The writer gets the event's struct along with its frame, which saves decoding the frame again,
# only while little is waiting: a stuck disk must not hold decoded payloads (many times their
# frames' size) in memory. Past this many queued frame bytes, or for a frame this large, the
# writer decodes the frame itself.
KEEP_DECODED = 2 << 20


class Journal:
    """Appends events to the journal files from a writer thread."""

    def __init__(self, path: str, max_bytes: int, keep: int, backlog: int = 1_000_000, backlog_bytes: int = 256 << 20) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.backlog = backlog
        self.backlog_bytes = backlog_bytes
        self.queue: deque[tuple[int, bytes, Event | None]] = deque()
        self.wake = threading.Event()
        self.notify: Notify | None = None  # set by the bus; called from the writer thread
        self.written = 0
        self.lost = 0  # events a write failed to store
        self.dropped = 0  # events refused because the backlog was full (counted on the loop)
        self.torn_bytes = 0  # cut from a torn end at start
        self.last_written = 0  # seq of the newest line on disk
        self._dropped_reported = 0
        self._in_bytes = 0  # queued by the loop thread ...
        self._out_bytes = 0  # ... taken by the writer: each counter has one writer
        self._failure: dict[str, Any] | None = None  # the losses of the current failure, until it ends
        self._decode = msgspec.msgpack.Decoder(Event).decode
        self._json = msgspec.json.Encoder()
        self._stop = False
        self._fd: int | None = None
        self._size = 0  # bytes of complete lines in the current file
        self._dirty = False  # the file may end in a partial line that could not be cut yet
        self._thread = threading.Thread(target=self._run, name="hookd-journal", daemon=True)

    @property
    def failing(self) -> bool:
        return self._failure is not None

    def stats(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "written": self.written,
            "lost": self.lost + self.dropped,
            "failing": self.failing,
            "last_written": self.last_written,
        }

    # ----------------------------------------------------------- the loop side

    def put(self, seq: int, frame: bytes, event: Event | None = None) -> None:
        """Queue one event (event-loop thread). Past the backlog bound it is dropped and counted."""
        queue = self.queue
        n = len(queue)
        pending = self._in_bytes - self._out_bytes
        if n >= self.backlog or pending >= self.backlog_bytes:
            self.dropped += 1  # the disk is stuck: bound the memory
            return
        if n == 0:
            self.wake.set()  # once per batch, not per event
        size = len(frame)
        self._in_bytes += size
        queue.append((seq, frame, event if pending + size <= KEEP_DECODED else None))

    def start(self) -> None:
        directory = os.path.dirname(self.path) or "."
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self.torn_bytes = cut_torn_end(self.path)
        if self.torn_bytes:
            log.warning("the journal ended in a torn line; cut it off", path=self.path, bytes=self.torn_bytes)
        self._open()
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop the thread."""
        self._stop = True
        self.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._failure is not None:
            log.error("journal stopped while failing", path=self.path, **self._failure)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    # ------------------------------------------------------------ the thread

    def _open(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._size = os.fstat(self._fd).st_size
        self._dirty = False

    def _run(self) -> None:
        while True:
            # The timeout is a safety net for a wake-up lost to the producer's race-free-enough check.
            self.wake.wait(1.0)
            self.wake.clear()
            if not self._stop:
                time.sleep(BATCH_DELAY)
            try:
                self._drain()
            except Exception as exc:  # a bug here must not kill the thread; what it held is counted lost
                log.exception("journal writer failed", path=self.path)
                seqs = [item[0] for item in self.queue]
                self.queue.clear()
                self._lose(seqs, exc)
            if self._stop and not self.queue:
                return

    def _emit(self, point: str, payload: dict[str, Any]) -> None:
        if self.notify is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the log line is all there is
                self.notify(point, payload)

    def _drain(self) -> None:
        if self.dropped != self._dropped_reported:
            count = self.dropped - self._dropped_reported
            self._dropped_reported += count
            log.warning("journal could not keep up; events were not written", dropped=count)
            self._emit("hookd.journal.lost", {"count": count, "reason": "backlog", "path": self.path})
        queue = self.queue
        buf = bytearray()
        seqs: list[int] = []
        while queue:
            batch = [queue.popleft() for _ in range(min(len(queue), BATCH))]
            self._out_bytes += sum(len(item[1]) for item in batch)
            events = [ev if ev is not None else self._event(seq, data) for seq, data, ev in batch]
            # One encoder call per batch (half the writer's CPU per event); the
            # line-by-line path below when the batch would cross a rotation or cannot be encoded.
            blob = self._lines(events)
            if blob is not None and self._size + len(buf) + len(blob) <= self.max_bytes:
                buf += blob
                seqs.extend(item[0] for item in batch)
            else:
                for (seq, _, _), event in zip(batch, events, strict=True):
                    line = self._line(event)
                    if self._size + len(buf) + len(line) > self.max_bytes and self._size + len(buf) > 0:
                        self._write(buf, seqs)
                        buf, seqs = bytearray(), []
                        self._rotate()
                    buf += line
                    seqs.append(seq)
            if len(buf) >= CHUNK:
                self._write(buf, seqs)
                buf, seqs = bytearray(), []
        if buf:
            self._write(buf, seqs)

    def _event(self, seq: int, data: bytes) -> Event:
        try:
            return self._decode(memoryview(data)[HEADER.size :])
        except msgspec.DecodeError as exc:  # our own frame: should not happen, but never loses the line
            return Event(seq, time.time(), "internal", "hookd.event.unencodable", payload={"reason": f"journal: {exc}"})

    def _lines(self, events: list[Event]) -> bytes | None:
        try:
            return self._json.encode_lines(events)
        except (TypeError, ValueError):
            return None

    def _line(self, event: Event) -> bytes:
        try:
            return self._json.encode(event) + b"\n"
        except (TypeError, ValueError) as exc:
            # A payload JSON cannot hold (msgpack extension types): keep the event, say why.
            kept = msgspec.structs.replace(event, payload={"unencodable": f"{type(exc).__name__}: {exc}"})
            return self._json.encode(kept) + b"\n"

    # ----------------------------------------------------------- the disk

    def _write(self, buf: bytearray, seqs: list[int]) -> None:
        """Append whole lines; on failure cut the file back to its last whole line and count the rest lost."""
        if not buf:
            return
        try:
            if self._fd is None:
                self._open()
            elif self._dirty:
                os.ftruncate(self._fd, self._size)
                self._dirty = False
        except OSError as exc:
            self._lose(seqs, exc)
            return
        fd = self._fd
        assert fd is not None
        view = memoryview(buf)
        done = 0
        try:
            while done < len(buf):
                n = os.write(fd, view[done:])
                if n <= 0:
                    raise OSError(errno.EIO, "the write stored nothing")
                done += n
        except OSError as exc:
            whole = buf.rfind(b"\n", 0, done) + 1
            lines = buf.count(b"\n", 0, whole)
            self._stored(whole, seqs[:lines])
            if done > whole:
                try:
                    os.ftruncate(fd, self._size)
                except OSError:
                    self._dirty = True  # cut before the next write
            self._lose(seqs[lines:], exc)
            return
        finally:
            view.release()
        self._stored(done, seqs)
        if self._failure is not None:
            self._recovered()

    def _stored(self, size: int, seqs: list[int]) -> None:
        self._size += size
        self.written += len(seqs)
        if seqs:
            self.last_written = seqs[-1]

    def _lose(self, seqs: list[int], exc: BaseException) -> None:
        if not seqs:
            return
        self.lost += len(seqs)
        failure = self._failure
        if failure is None:
            failure = self._failure = {"count": 0, "from": seqs[0], "to": seqs[-1], "error": str(exc)}
            log.error("journal write failed; events are lost until it works again", path=self.path, error=str(exc))
            self._emit("hookd.journal.failed", {"path": self.path, "error": str(exc)})
        failure["count"] += len(seqs)
        failure["to"] = seqs[-1]

    def _recovered(self) -> None:
        failure, self._failure = self._failure, None
        assert failure is not None
        log.warning("journal writes work again", path=self.path, **failure)
        self._emit("hookd.journal.lost", {**failure, "reason": "write failed", "path": self.path})

    def _rotate(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}.{self.keep}")
            for n in range(self.keep - 1, 0, -1):
                with contextlib.suppress(FileNotFoundError):
                    os.replace(f"{self.path}.{n}", f"{self.path}.{n + 1}")
            if self.keep > 0:
                os.replace(self.path, f"{self.path}.1")
            else:
                os.unlink(self.path)
            self._open()
        except OSError as exc:
            # The next write opens the file again (and fails, counted, while it cannot).
            log.error("journal rotation failed", path=self.path, error=str(exc))
