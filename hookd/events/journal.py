"""The audit journal: events as JSON lines on disk, written by a background thread.

The event loop encodes the events of the last moment into JSON lines, one encoder call per batch.
The writer thread only appends those bytes, and its writes release the GIL, so it almost never
holds the interpreter (a thread encoding with the GIL held stalls the loop for as long as the OS
leaves it unscheduled, on a machine with more runnable processes than CPUs). An emitter never
waits for the disk. Files rotate by size (journal_files.py); a line never straddles two files.

A write that fails part-way (a full disk, a file size limit) never leaves a torn line: the file is
cut back to its last complete line, the events not written are counted as lost, and the bus hears
``hookd.journal.failed`` when it starts failing and ``hookd.journal.lost`` (how many, which seqs,
why) once writes work again. A torn end left by a crash is cut off at start. Past the backlog bound
events are dropped, counted and announced as ``hookd.journal.lost`` with the reason ``backlog``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog
from hookd_client.framing import HEADER
from hookd_client.messages import Event

from hookd.events.journal_files import cut_torn_end, default_path, files, last_event, let_go, open_to_append, read, retire, shift
from hookd.events.journal_lines import event_of, lines

__all__ = ["BATCH", "Journal", "default_path", "files", "last_event", "read"]

log = structlog.get_logger("hookd.journal")

Notify = Callable[[str, dict[str, Any]], None]
Parts = list[bytes | bytearray]  # encoded batches written with one writev (joined only to rotate or finish a short write)

# Each hand-over to the writer costs the loop a GIL round trip with the thread (it wakes, and
# takes the GIL again after its write), and on a machine with more runnable processes than
# CPUs every one of them can stall the loop for a scheduling delay. So hand-overs are rare:
# at most every BATCH_DELAY or CHUNK bytes (strace under pipelined emits: about 13-26 loop
# waits for the GIL per 100,000 events this way, 48 with a hand-over every 50 ms or 1 MiB).
BATCH_DELAY = 0.25  # seconds an event may wait on the loop before it is handed to the writer
# Events that wait on the loop before they are encoded, one encoder call for them all: about
# what one of the bus's passes holds of small events (16 KiB of requests), so they are encoded
# soon after the reads that staged them, while their payloads are still in the CPU's caches
# (512 cost ~10% more daemon CPU per pipelined emit).
BATCH = 128
CHUNK = 4 << 20  # encoded bytes gathered before the writer is woken, and written with one call
_MAX_PARTS = 1024  # batches one writev takes (Linux's IOV_MAX)


class Journal:
    """Appends events to the journal files: encoded on the event loop, written from a thread."""

    def __init__(self, path: str, max_bytes: int, keep: int, backlog: int = 1_000_000, backlog_bytes: int = 256 << 20) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.backlog = backlog
        self.backlog_bytes = backlog_bytes
        # Loop side: events waiting to be encoded, then encoded batches waiting to be handed over.
        self._seqs: list[int] = []
        self._events: list[Event | bytes] = []  # the struct, or the frame when the caller had none
        self._undecoded = False  # some of _events are frames
        self._pending_bytes = 0
        self._outbox: list[tuple[bytes, list[int], int]] = []
        self._outbox_bytes = 0
        self._timer: asyncio.TimerHandle | None = None
        self._encode_soon = False
        self._loop: asyncio.AbstractEventLoop | None = None
        # Handed over: (JSON lines, their seqs, the frames' bytes they stand for); one producer, one consumer.
        self.queue: deque[tuple[bytes, list[int], int]] = deque()
        self.wake = threading.Event()
        self.notify: Notify | None = None  # set by the bus; called from the writer thread
        self.written = 0
        self.lost = 0  # events a write failed to store
        self.dropped = 0  # events refused because the backlog was full (counted on the loop)
        self.torn_bytes = 0  # cut from a torn end at start
        self.last_written = 0  # seq of the newest line on disk
        self._dropped_reported = 0
        # The backlog, in events and frame bytes: accepted by the loop thread ...
        self._in_events = 0
        self._in_bytes = 0
        self._out_events = 0  # ... and taken by the writer: each counter has one writer
        self._out_bytes = 0
        self._failure: dict[str, Any] | None = None  # the losses of the current failure, until it ends
        self._stop = False
        self._fd: int | None = None
        self._size = 0  # bytes of complete lines in the current file
        self._let_go_at = 0  # _size when the file's older pages were last let go
        self._dirty = False  # the file may end in a partial line that could not be cut yet
        self._unfinished = False  # closed while the writer was still at work
        self._thread = threading.Thread(target=self._run, name="hookd-journal", daemon=True)

    @property
    def failing(self) -> bool:
        return self._failure is not None or self._unfinished

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
        """Queue one event (event-loop thread). Past the backlog bound it is dropped and counted.

        ``event`` is the struct ``frame`` encodes, when the caller has it (saves decoding the frame).
        """
        size = len(frame)
        if self._in_events - self._out_events >= self.backlog or self._in_bytes - self._out_bytes >= self.backlog_bytes:
            self.dropped += 1  # the disk is stuck: bound the memory
            return
        self._in_events += 1
        self._in_bytes += size
        if event is None:
            self._undecoded = True
        self._seqs.append(seq)
        self._events.append(frame if event is None else event)
        self._pending_bytes += size
        self._schedule()

    def put_all(self, events: list[Event], bodies: list[bytes], size: int) -> None:
        """:meth:`put` for the bus's pass of events: the structs, their msgpack bodies (read only
        near the backlog bound), their frames' bytes."""
        count = len(events)
        if self._in_events - self._out_events + count > self.backlog or self._in_bytes - self._out_bytes + size > self.backlog_bytes:
            for event, body in zip(events, bodies, strict=True):  # near the bound: event by event
                self.put(event.seq, HEADER.pack(len(body)) + body, event)
            return
        self._in_events += count
        self._in_bytes += size
        self._seqs += [event.seq for event in events]  # plain attribute loads: cheaper than an attrgetter
        self._events.extend(events)
        self._pending_bytes += size
        self._schedule()

    def _schedule(self) -> None:
        if len(self._seqs) >= BATCH or self._pending_bytes >= CHUNK:
            loop = self._loop
            if loop is None:
                self._encode()
            elif not self._encode_soon:
                self._encode_soon = True  # after this read's batch, not inside one emit's reply
                loop.call_soon(self._encode)
        elif self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(BATCH_DELAY, self.flush)

    def flush(self) -> None:
        """Encode what waits on the loop and hand it to the writer (event-loop thread)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._encode()
        self._hand_over()

    def _encode(self) -> None:
        self._encode_soon = False
        seqs, events = self._seqs, self._events
        if not seqs:
            return
        self._seqs, self._events = [], []
        frame_bytes, self._pending_bytes = self._pending_bytes, 0
        if self._undecoded:
            self._undecoded = False
            events = [event_of(seq, ev) if isinstance(ev, bytes) else ev for seq, ev in zip(seqs, events, strict=True)]
        blob = lines(events)  # type: ignore[arg-type]
        self._outbox.append((blob, seqs, frame_bytes))
        self._outbox_bytes += len(blob)
        if self._outbox_bytes >= CHUNK:
            self._hand_over()
        elif self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(BATCH_DELAY, self.flush)  # what is left goes out in time

    def _hand_over(self) -> None:
        outbox = self._outbox
        if not outbox:
            return
        self._outbox = []
        self._outbox_bytes = 0
        self.queue.extend(outbox)
        self.wake.set()

    def start(self) -> None:
        directory = os.path.dirname(self.path) or "."
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self.torn_bytes = cut_torn_end(self.path)
        if self.torn_bytes:
            log.warning("the journal ended in a torn line; cut it off", path=self.path, bytes=self.torn_bytes)
        self._open()
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a tool, a test): put encodes when a batch is full, close the rest
            self._loop = None
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop the thread and let the file go."""
        self.stop(timeout)
        self.release()

    def stop(self, timeout: float = 5.0) -> None:
        """Write what is queued and stop the thread; the file stays open for :meth:`write_rest`."""
        self.flush()
        self._stop = True
        self.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._thread.is_alive():
            # The writer is still at work (a slow disk): its file stays its own, and the events it
            # holds are not known to be written, so the stop is not a clean one (announced at start).
            self._unfinished = True
            log.error("journal writer did not finish in time; unwritten events are announced at the next start", path=self.path)

    def write_rest(self) -> None:
        """Once the thread has stopped: write what was put since on the calling thread (the reports
        of its last pass, so that they are on disk before the stop is recorded)."""
        if not self._unfinished and not self._thread.is_alive():
            self.flush()
            self._drain()

    def lost_at_stop(self) -> int | None:
        """Once the writer has stopped: how many events the failure still going on has lost, or None.
        No write that works will end that failure and report it (see Bus.close)."""
        if self._failure is None or self._unfinished or self._thread.is_alive():
            return None
        return int(self._failure["count"])

    def release(self) -> None:
        """Let the file go (a writer still at work keeps it: see :meth:`stop`)."""
        if self._unfinished or self._thread.is_alive():
            return
        if self._failure is not None:
            log.error("journal stopped while failing", path=self.path, **self._failure)
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    # ------------------------------------------------------------ the thread

    def _open(self) -> None:
        # A file that may end in a torn line (the same file again, after a failed rotation) is cut first.
        self._fd, size = open_to_append(self.path, self._size if self._dirty else None)
        self._size = self._let_go_at = size
        self._dirty = False

    def _run(self) -> None:
        while True:
            # The timeout is a safety net for a wake-up lost to the producer's race-free-enough check.
            self.wake.wait(1.0)
            self.wake.clear()
            try:
                self._drain()
            except Exception:  # _drain counts what it held; this only keeps the thread alive
                log.exception("journal writer failed", path=self.path)
            if self._stop and not self.queue:
                return

    def _emit(self, point: str, payload: dict[str, Any]) -> None:
        if self.notify is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the log line is all there is
                self.notify(point, payload)

    def _drain(self) -> None:
        """Write what is queued; never raises: a bug (or an error no write path expects) costs the
        events it held, counted lost as any failed write's, and the next pass goes on."""
        if self.dropped != self._dropped_reported:
            count = self.dropped - self._dropped_reported
            self._dropped_reported += count
            log.warning("journal could not keep up; events were not written", dropped=count)
            self._emit("hookd.journal.lost", {"count": count, "reason": "backlog", "path": self.path})
        taken: list[int] = []  # seqs off the queue this pass, in order: each is written or lost, in order
        accounted = self.written + self.lost
        try:
            self._write_queued(taken)
        except Exception as exc:
            log.exception("journal writer failed", path=self.path)
            self._lose(taken[self.written + self.lost - accounted :], exc)

    def _write_queued(self, taken: list[int]) -> None:
        queue = self.queue
        parts: Parts = []
        size = 0
        seqs: list[int] = []
        while queue:
            blob, batch_seqs, frame_bytes = queue.popleft()
            self._out_events += len(batch_seqs)
            self._out_bytes += frame_bytes
            taken += batch_seqs
            if self._size + size + len(blob) <= self.max_bytes:
                parts.append(blob)
                size += len(blob)
                seqs.extend(batch_seqs)
            else:
                parts, seqs = self._rotating(parts, seqs, blob, batch_seqs)
                size = len(parts[0])
            if size >= CHUNK or len(parts) >= _MAX_PARTS:
                self._write(parts, seqs)
                parts, seqs, size = [], [], 0
        if parts:
            self._write(parts, seqs)

    def _rotating(self, parts: Parts, seqs: list[int], blob: bytes, blob_seqs: list[int]) -> tuple[Parts, list[int]]:
        """Add a batch line by line, rotating before the line that would pass the size limit."""
        out = bytearray().join(parts)
        start = 0
        for seq in blob_seqs:
            end = blob.index(b"\n", start) + 1
            if self._size + len(out) + (end - start) > self.max_bytes and self._size + len(out) > 0:
                self._write([out], seqs)
                out, seqs = bytearray(), []
                self._rotate()
            out += blob[start:end]
            seqs.append(seq)
            start = end
        return [out], seqs

    # ----------------------------------------------------------- the disk

    def _write(self, parts: Parts, seqs: list[int]) -> None:
        """Append whole lines; on failure cut the file back to its last whole line and count the rest lost."""
        total = sum(map(len, parts))
        if not total:
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
        done = 0
        buf: bytes | bytearray = b""
        try:
            # One call for the batches as they are: joining them first copied every byte once more.
            done = os.writev(fd, parts)
            if done < total:  # a short write (a file size limit, a signal): the rest, write by write
                buf = bytearray().join(parts)
                with memoryview(buf) as view:
                    while done < total:
                        n = os.write(fd, view[done:])
                        if n <= 0:
                            raise OSError(errno.EIO, "the write stored nothing")
                        done += n
        except OSError as exc:
            buf = buf or bytearray().join(parts)
            whole = buf.rfind(b"\n", 0, done) + 1
            stored = buf.count(b"\n", 0, whole)  # the lines on disk whole
            self._stored(whole, seqs[:stored])
            if done > whole:
                try:
                    os.ftruncate(fd, self._size)
                except OSError:
                    self._dirty = True  # cut before the next write
            self._lose(seqs[stored:], exc)
            return
        self._stored(done, seqs)
        if self._size - self._let_go_at >= CHUNK:
            self._let_go_at = self._size
            let_go(fd, self._size - CHUNK)  # all but the newest chunk
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
        fd, self._fd = self._fd, None
        if fd is None:
            # No file open since a failed rotation: nothing new to rotate, and shifting the files
            # again would drop an older one for nothing.
            with contextlib.suppress(OSError):
                self._open()
            return
        retire(fd, self._size, self.path)
        try:
            shift(self.path, self.keep)
            self._open()
        except OSError as exc:
            # The next write opens the file again (and fails, counted, while it cannot).
            log.error("journal rotation failed", path=self.path, error=str(exc))
