"""The audit journal: events as JSON lines on disk, written by a background thread.

The event loop only appends a small tuple to a deque (thread-safe for one
producer and one consumer); a writer thread wakes, waits a moment so events
arrive in batches, encodes them and writes. So an emitter never waits for the
disk. Files rotate by size: ``events.jsonl`` is current, ``events.jsonl.1`` the
previous one, up to ``.KEEP``; a line never straddles two files.

Reading (``hookd tail``) goes through :func:`read`, oldest file first.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import msgspec
import structlog
from hookd_client.messages import Event

log = structlog.get_logger("hookd.journal")

Encode = Callable[[Any], Event]

BATCH_DELAY = 0.05  # seconds the writer waits after waking, so one write carries many events
CHUNK = 1 << 20  # bytes encoded before a write
BATCH = 512  # events encoded in one call
_TAIL_PROBE = 64 * 1024


def default_path(environ: dict[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/hookd/events.jsonl`` (``~/.local/state`` when unset)."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "hookd", "events.jsonl")


def files(path: str, keep: int | None = None) -> list[str]:
    """The journal's files that exist, oldest first (``path.N`` ... ``path.1``, ``path``)."""
    rotated = []
    n = 1
    while keep is None or n <= keep:
        name = f"{path}.{n}"
        if not os.path.exists(name):
            break
        rotated.append(name)
        n += 1
    out = list(reversed(rotated))
    if os.path.exists(path):
        out.append(path)
    return out


_decoder = msgspec.json.Decoder(Event)


def _last_line(name: str) -> bytes | None:
    """The last complete line of a file (a torn last line from a crash is skipped)."""
    with open(name, "rb") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - _TAIL_PROBE))
        data = f.read()
    lines = data.split(b"\n")
    # Everything after the last newline is torn; the first piece may be a partial line.
    complete = lines[1:-1] if size > _TAIL_PROBE else lines[:-1]
    for line in reversed(complete):
        if line.strip():
            return line
    return None


def last_event(path: str) -> Event | None:
    """The newest event in the journal, or None when there is none."""
    for name in reversed(files(path)):
        try:
            line = _last_line(name)
        except OSError:
            continue
        if line is None:
            continue
        with contextlib.suppress(msgspec.DecodeError):
            return _decoder.decode(line)
    return None


def read(path: str, since: float | None = None) -> Iterator[Event]:
    """Every event in the journal, oldest first; with ``since`` (Unix time) only newer ones.

    All files are opened before reading, so a rotation while reading neither
    loses nor repeats a file; events are de-duplicated by seq anyway.
    Malformed lines (a torn write after a crash) are skipped.
    """
    handles = []
    for name in files(path):
        with contextlib.suppress(OSError):
            handles.append(open(name, "rb"))  # noqa: SIM115 - closed below
    last = -1
    try:
        for i, f in enumerate(handles):
            if since is not None and i < len(handles) - 1:
                newest = _last_line(f.name)
                if newest is not None:
                    with contextlib.suppress(msgspec.DecodeError):
                        if _decoder.decode(newest).time < since:
                            continue  # the whole file is older than asked
            for line in f:
                if not line.endswith(b"\n"):
                    break  # being written right now
                try:
                    event = _decoder.decode(line)
                except msgspec.DecodeError:
                    continue
                if event.seq <= last:
                    continue
                last = event.seq
                if since is None or event.time >= since:
                    yield event
    finally:
        for f in handles:
            f.close()


class Journal:
    """Appends events to the journal files from a writer thread."""

    def __init__(self, path: str, max_bytes: int, keep: int, encode: Encode, backlog: int = 1_000_000) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.backlog = backlog
        self.queue: deque[Any] = deque()
        self.wake = threading.Event()
        self.written = 0
        self.dropped = 0  # also counted by the bus when the queue is at its bound
        self._dropped_reported = 0
        self.failed = False
        self._encode = encode
        self._json = msgspec.json.Encoder()
        self._stop = False
        self._file: Any = None
        self._size = 0
        self._thread = threading.Thread(target=self._run, name="hookd-journal", daemon=True)

    def start(self) -> None:
        directory = os.path.dirname(self.path) or "."
        os.makedirs(directory, mode=0o700, exist_ok=True)
        self._open()
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued, then stop the thread."""
        self._stop = True
        self.wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)
        if self._file is not None:
            self._file.close()
            self._file = None

    # ------------------------------------------------------------ the thread

    def _open(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        self._file = os.fdopen(fd, "ab", buffering=0)
        self._size = os.fstat(fd).st_size

    def _run(self) -> None:
        while True:
            # The timeout is a safety net for a wake-up lost to the producer's race-free-enough check.
            self.wake.wait(1.0)
            self.wake.clear()
            if not self._stop:
                time.sleep(BATCH_DELAY)
            try:
                self._drain()
            except Exception as exc:  # a full disk must not kill the thread; keep counting what is lost
                if not self.failed:
                    log.error("journal write failed; events are dropped until it works again", path=self.path, error=str(exc))
                self.failed = True
                self.dropped += len(self.queue)
                self.queue.clear()
            else:
                self.failed = False
            if self._stop and not self.queue:
                return

    def _line(self, rec: Any) -> bytes:
        event = self._encode(rec)
        try:
            return self._json.encode(event) + b"\n"
        except (TypeError, ValueError) as exc:
            # A payload JSON cannot hold (msgpack extension types): keep the event, say why.
            event.payload = {"unencodable": f"{type(exc).__name__}: {exc}"}
            return self._json.encode(event) + b"\n"

    def _drain(self) -> None:
        queue = self.queue
        if self.dropped != self._dropped_reported:
            log.warning("journal could not keep up; events were not written", dropped=self.dropped - self._dropped_reported)
            self._dropped_reported = self.dropped
        if len(queue) > self.backlog:
            excess = len(queue) - self.backlog
            for _ in range(excess):
                queue.popleft()
            self.dropped += excess
            log.warning("journal backlog over its bound; oldest unwritten events dropped", dropped=excess)
        buf = bytearray()
        while queue:
            batch = [queue.popleft() for _ in range(min(len(queue), BATCH))]
            # One encoder call per batch (half the writer's CPU per event, bench row 5); the
            # line-by-line path below when the batch would cross a rotation or cannot be encoded.
            blob = self._lines(batch)
            if blob is not None and self._size + len(buf) + len(blob) <= self.max_bytes:
                buf += blob
            else:
                for rec in batch:
                    buf = self._append(buf, self._line(rec))
            if len(buf) >= CHUNK:
                self._write(buf)
                buf = bytearray()
        if buf:
            self._write(buf)

    def _lines(self, batch: list[Any]) -> bytes | None:
        try:
            return self._json.encode_lines([self._encode(rec) for rec in batch])
        except (TypeError, ValueError):
            return None

    def _append(self, buf: bytearray, line: bytes) -> bytearray:
        if self._size + len(buf) + len(line) > self.max_bytes and self._size + len(buf) > 0:
            self._write(buf)
            buf = bytearray()
            self._rotate()
        buf += line
        return buf

    def _write(self, data: bytearray) -> None:
        if not data:
            return
        self._file.write(data)
        self._size += len(data)
        self.written += data.count(b"\n")

    def _rotate(self) -> None:
        self._file.close()
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
