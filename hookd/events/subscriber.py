"""One subscribed connection: what it wants, what waits for it, what it lost.

Frames go straight to the connection's transport while the transport accepts
them (it has not called ``pause_writing``: the kernel's socket buffer and the
transport's own buffer up to its high-water mark). Only what arrives while the
transport is paused waits here, in a queue bounded by ``queue`` events and
``queue_bytes`` bytes; past either bound events are dropped, counted, and the
subscriber gets a Gap frame as soon as there is room again. So a reader that
keeps up never loses an event whatever its ``queue``, and one that stops reading
costs at most the transport's buffer plus its queue. A replay is served from the
history ring (history.py) and does not count against the queue.
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import structlog
from hookd_client import messages as m

from hookd.events.eventcodec import frame as make_frame
from hookd.events.eventcodec import pack as _pack

log = structlog.get_logger("hookd.bus")

# An event as a subscription selects it: (seq, time, point, session, project, bytes), the bytes
# its frame on the live stream and its msgpack body (no header yet) from the history ring.
Record = tuple[int, float, str, str | None, str | None, bytes]

WRITE_CHUNK = 64 * 1024  # bytes joined into one transport write


class Filter:
    """Which events a subscription wants: point globs, sessions, projects (AND; empty = all)."""

    __slots__ = ("_point", "everything", "key", "points", "projects", "sessions")

    def __init__(self, points: Iterable[str] = (), sessions: Iterable[str] = (), projects: Iterable[str] = ()) -> None:
        self.points = tuple(points)
        self.sessions = frozenset(sessions) or None
        self.projects = frozenset(os.path.normpath(p) for p in projects) or None
        self._point: Callable[[str], Any] | None = None
        if self.points:
            self._point = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in self.points)).match
        # Equal filters select equal events: the fan-out selects once per key, not per subscriber.
        self.key = (tuple(sorted(set(self.points))), self.sessions, self.projects)
        self.everything = not self.points and self.sessions is None and self.projects is None

    def __call__(self, rec: Record) -> bool:
        if self._point is not None and self._point(rec[2]) is None:
            return False
        if self.sessions is not None and rec[3] not in self.sessions:
            return False
        return self.projects is None or rec[4] in self.projects


class Selection:
    """One fan-out pass's events for one filter, and (made once, when first wanted) their frames
    joined into writes of up to WRITE_CHUNK bytes, shared by every subscriber with that filter."""

    __slots__ = ("_chunks", "records")

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self._chunks: list[tuple[bytes, int]] | None = None

    def chunks(self) -> list[tuple[bytes, int]]:
        """The frames joined in order, as (bytes, index of the record after the last one in them)."""
        chunks = self._chunks
        if chunks is None:
            chunks = self._chunks = []
            records = self.records
            start = size = 0
            for i, rec in enumerate(records):
                size += len(rec[5])
                if size >= WRITE_CHUNK:
                    chunks.append((b"".join([r[5] for r in records[start : i + 1]]), i + 1))
                    start, size = i + 1, 0
            if start < len(records):
                chunks.append((b"".join([r[5] for r in records[start:]]), len(records)))
        return chunks


class Bus(Protocol):
    """Where a subscriber reports what happens to it (hookd/events/bus.py): as internal events."""

    def internal(self, point: str, payload: dict[str, Any], session: str | None = None, project: str | None = None) -> None: ...


class Subscriber:
    """One subscribed connection: its filter, its bounded queue, its loss accounting."""

    def __init__(self, bus: Bus, conn: Any, flt: Filter, max_count: int, max_bytes: int) -> None:
        self.bus = bus
        self.conn = conn
        self.filter = flt
        self.max_count = max_count
        self.max_bytes = max_bytes
        self.replay: deque[bytes] = deque()  # history bodies from the ring, framed as written: not bounded by the queue
        # History still to be read back from a snapshot of the ring (a None: let the loop run first).
        # Live frames wait behind it in the queue, behind the Live marker that subscribing puts there.
        self.backlog: Iterator[bytes | None] | None = None
        self._pump_soon = False
        self.queue: deque[bytes] = deque()  # live frames the paused transport could not take yet
        self.queued_bytes = 0
        self._out: list[bytes] = []  # frames about to be written in one transport write
        self._out_bytes = 0
        self.held = True  # until the Subscribed reply has been written
        # The transport's buffer is over its high-water mark: it may already be, as the connection
        # is told only when it crosses the mark.
        self.paused = bool(getattr(conn, "paused_writing", False))
        self.closed = False
        self.delivered = 0
        self.missed = 0
        self.miss_first = 0
        self.miss_last = 0

    # ---------------------------------------------------------- the queue

    def _room(self, frame_size: int) -> bool:
        return len(self.queue) < self.max_count and self.queued_bytes + frame_size <= self.max_bytes

    def _recovered(self) -> bool:
        # Hysteresis: a gap ends once the queue is half empty, not at the first free slot,
        # so a reader hovering at the limit gets a few gaps, not one per event.
        return len(self.queue) <= self.max_count // 2 and self.queued_bytes <= self.max_bytes // 2

    def _push(self, frame: bytes) -> None:
        self.queue.append(frame)
        self.queued_bytes += len(frame)

    def _close_gap(self) -> None:
        gap = m.Gap(self.missed, self.miss_first, self.miss_last)
        self._push(make_frame(gap))
        self.bus.internal(
            "hookd.subscriber.gap",
            {"peer": getattr(self.conn, "peer", 0), "client": getattr(self.conn, "client", ""), "missed": self.missed},
        )
        self.missed = 0

    def offer_all(self, selection: Selection) -> None:
        """A fan-out pass's events for this subscriber: the shared joined writes while it keeps up,
        and from the moment its transport pauses, one by one through its bounded queue."""
        records = selection.records
        done = 0
        if not self.paused and not self.held and not self.queue and not self.replay and not self.missed:
            if self._out:
                self.flush()
            transport = self._transport()
            if transport is None:
                return
            for chunk, end in selection.chunks():
                if self.paused:
                    break
                self.delivered += end - done
                transport.write(chunk)  # may call pause_writing: the rest is queued, bounded
                done = end
        for rec in records[done:] if done else records:
            self.offer(rec[0], rec[5])

    def offer(self, seq: int, frame: bytes) -> None:
        """A live event for this subscriber: written now if the transport takes it, else queued or lost."""
        if not self.paused and not self.held and not self.queue and not self.replay and not self.missed:
            self._out.append(frame)
            self._out_bytes += len(frame)
            if self._out_bytes >= WRITE_CHUNK:
                self.flush()
            return
        if self._out:
            self.flush()  # keeps the order: what was on its way goes first
        if self.missed:
            if not self._recovered():
                self._lose(seq)
                return
            self._close_gap()
        if self._room(len(frame)):
            self._push(frame)
        else:
            self._lose(seq)

    def replayed(self, body: bytes) -> None:
        """A past event's msgpack body (or a replay's gap's), written before anything live."""
        self.replay.append(body)

    def mark(self, frame: bytes) -> None:
        """A control frame (Gap, Live): always queued, it is small and must not be lost."""
        if self._out:
            self.flush()
        if self.missed:
            self._close_gap()
        self._push(frame)

    def _lose(self, seq: int) -> None:
        if not self.missed:
            self.miss_first = seq
            self.bus.internal(
                "hookd.subscriber.behind",
                {
                    "peer": getattr(self.conn, "peer", 0),
                    "client": getattr(self.conn, "client", ""),
                    "queued": len(self.queue),
                    "queued_bytes": self.queued_bytes,
                },
            )
            log.warning("subscriber fell behind; dropping its events until it reads", peer=getattr(self.conn, "peer", 0))
        self.missed += 1
        self.miss_last = seq

    # ------------------------------------------------------------ writing

    def start(self) -> None:
        self.held = False
        self.pump()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        self.pump()

    def _transport(self) -> Any:
        if self.closed:
            return None
        transport = self.conn.transport
        if transport is None or transport.is_closing():
            return None
        return transport

    def flush(self) -> None:
        """Write the frames gathered by :meth:`offer` (the transport may pause us while writing)."""
        out = self._out
        if not out:
            return
        self._out = []
        self._out_bytes = 0
        transport = self._transport()
        if transport is None:
            return
        self.delivered += len(out)
        transport.write(b"".join(out))

    def pump(self) -> None:
        """Move replayed, then queued frames to the socket until the transport says it is full."""
        self.flush()
        if self.held:
            return
        transport = self._transport()
        if transport is None:
            return
        while not self.paused:
            # History is read back only once what was read before is written; a pause of the
            # backlog with nothing read yet lets the loop run other work first.
            if not self.replay and self.backlog is not None:
                self._read_back()
                if not self.replay and self.backlog is not None:
                    self._pump_later()
                    return
            source = self.replay or self.queue
            if not source:
                if self.missed and self._recovered():
                    self._close_gap()
                    continue
                return
            chunk: list[bytes] = []
            size = 0
            if source is self.queue:
                while source and size < WRITE_CHUNK:
                    frame = source.popleft()
                    chunk.append(frame)
                    size += len(frame)
                self.queued_bytes -= size
                self.delivered += len(chunk)
            else:  # bodies from the ring: each gets its header as the chunk is joined, one copy in all
                while source and size < WRITE_CHUNK:
                    body = source.popleft()
                    chunk += (_pack(len(body)), body)
                    size += len(body)
                self.delivered += len(chunk) // 2
            transport.write(b"".join(chunk))  # may call pause_writing before returning
            if source is self.replay and not source and self.backlog is not None:
                self._pump_later()  # one chunk of history per turn of the loop
                return

    def _read_back(self) -> None:
        """Move history from the backlog to the replay queue, until WRITE_CHUNK bytes or a pause
        (the backlog is None once it is all read)."""
        assert self.backlog is not None
        replay = self.replay
        size = 0
        for body in self.backlog:
            if body is None:
                return
            replay.append(body)
            size += len(body)
            if size >= WRITE_CHUNK:
                return
        self.backlog = None

    def _pump_later(self) -> None:
        if self._pump_soon:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop runs (a bus closed after it): nothing more is written
            return
        self._pump_soon = True
        loop.call_soon(self._pump_again)

    def _pump_again(self) -> None:
        self._pump_soon = False
        self.pump()

    @property
    def sending(self) -> bool:
        """The stream has not ended: its reply, history or Live marker is still to be written."""
        return not self.closed and (self.held or self.backlog is not None or bool(self.replay) or bool(self.queue))

    def clear(self) -> None:
        self.closed = True
        self.backlog = None
        self.replay.clear()
        self.queue.clear()
        self._out = []
