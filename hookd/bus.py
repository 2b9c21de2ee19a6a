"""The event bus: every emit, decide and daemon happening, in order, to whoever listens.

Publishing is on the hot path, so :meth:`Bus.publish` does almost nothing: it
numbers the event, appends a tuple to the in-memory history ring and to the
journal's queue, and, only when someone subscribes, to a pending list that is
fanned out once per event-loop pass. Events become wire structs lazily, and
each is encoded at most once however many subscribers match it.

Each subscriber has a bounded queue (events and bytes) between the bus and its
socket. A reader that keeps up never has anything queued; one that stops
reading fills the transport's buffer (asyncio then calls pause_writing), then
its queue, then loses events, counted, and is told so with a Gap frame as soon
as there is room again. Nobody else waits for it.
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
import structlog
from hookd_client import messages as m
from hookd_client.framing import HEADER

from . import journal as journal_files
from .journal import Journal

log = structlog.get_logger("hookd.bus")

# An event as the bus keeps it: (seq, time, kind, point, session, project, payload, outcome, duration, size).
# ``outcome`` is the decision chain's state (anything with decision, reason, decided_by, errors) or None;
# ``size`` approximates the event's memory (its request's frame size) to bound the ring in bytes.
Record = tuple[int, float, str, str, str | None, str | None, dict[str, Any], Any, float | None, int]

WRITE_CHUNK = 64 * 1024
# Live events are fanned out at most this long after publication. Waiting a moment turns a
# steady trickle of events into one write per subscriber per millisecond instead of one per
# event (measured with 10 subscribers and a sequential emitter: ~130 us of daemon CPU per
# event with a fan-out per event, ~50 us with this delay; see bench/emit_throughput.py).
DISPATCH_DELAY = 0.001
_now = time.time
_SMALL = 256  # what an internal event counts for against history_bytes


def to_event(rec: Record) -> m.Event:
    seq, when, kind, point, session, project, payload, outcome, duration, _ = rec
    if outcome is None:
        return m.Event(seq, when, kind, point, session, project, payload, duration=duration)  # type: ignore[arg-type]
    return m.Event(
        seq,
        when,
        kind,  # type: ignore[arg-type]
        point,
        session,
        project,
        payload,
        outcome.decision,
        outcome.reason,
        outcome.decided_by,
        len(outcome.errors),
        duration,
    )


class BusError(Exception):
    """A subscribe/unsubscribe request that cannot be served (becomes an Error reply)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Filter:
    """Which events a subscription wants: point globs, sessions, projects (AND; empty = all)."""

    __slots__ = ("_point", "points", "projects", "sessions")

    def __init__(self, points: Iterable[str] = (), sessions: Iterable[str] = (), projects: Iterable[str] = ()) -> None:
        self.points = tuple(points)
        self.sessions = frozenset(sessions) or None
        self.projects = frozenset(os.path.normpath(p) for p in projects) or None
        self._point: Callable[[str], Any] | None = None
        if self.points:
            self._point = re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in self.points)).match

    def __call__(self, rec: Record) -> bool:
        if self._point is not None and self._point(rec[3]) is None:
            return False
        if self.sessions is not None and rec[4] not in self.sessions:
            return False
        return self.projects is None or rec[5] in self.projects


class Subscriber:
    """One subscribed connection: its filter, its bounded queue, its loss accounting."""

    def __init__(self, bus: Bus, conn: Any, flt: Filter, max_count: int, max_bytes: int) -> None:
        self.bus = bus
        self.conn = conn
        self.filter = flt
        self.max_count = max_count
        self.max_bytes = max_bytes
        self.queue: deque[bytes] = deque()
        self.queued_bytes = 0
        self.held = True  # until the Subscribed reply has been written
        self.paused = False  # the transport's buffer is over its high-water mark
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
        self._push(self.bus.frame(gap))
        self.bus.internal(
            "hookd.subscriber.gap",
            {"peer": getattr(self.conn, "peer", 0), "client": getattr(self.conn, "client", ""), "missed": self.missed},
        )
        self.missed = 0

    def offer(self, seq: int, frame: bytes) -> None:
        if self.missed:
            if not self._recovered():
                self._lose(seq)
                return
            self._close_gap()
        if self._room(len(frame)):
            self._push(frame)
        else:
            self._lose(seq)

    def mark(self, frame: bytes) -> None:
        """A control frame (Gap, Live): always queued, it is small and must not be lost."""
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

    def pump(self) -> None:
        """Move queued frames to the socket until the transport says it is full."""
        if self.held or self.closed:
            return
        transport = self.conn.transport
        if transport is None or transport.is_closing():
            return
        queue = self.queue
        while not self.paused:
            if not queue:
                if self.missed and self._recovered():
                    self._close_gap()
                    continue
                return
            chunk: list[bytes] = []
            size = 0
            while queue and size < WRITE_CHUNK:
                frame = queue.popleft()
                chunk.append(frame)
                size += len(frame)
            self.queued_bytes -= size
            self.delivered += len(chunk)
            transport.write(b"".join(chunk))  # may call pause_writing before returning


class Bus:
    def __init__(
        self,
        history: int = 10_000,
        history_bytes: int = 64 << 20,
        queue: int = 16_384,
        queue_bytes: int = 8 << 20,
        max_queue: int = 1_000_000,
        max_queue_bytes: int = 256 << 20,
        journal: Journal | None = None,
        first_seq: int = 1,
    ) -> None:
        self.seq = first_seq - 1
        self.first_seq = first_seq
        self.ring: deque[Record] = deque()
        self.history = history
        self.history_bytes = history_bytes
        self.ring_bytes = 0
        self.queue = queue
        self.queue_bytes = queue_bytes
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        self.journal = journal
        self._journal_queue = journal.queue if journal is not None else None
        self._journal_backlog = journal.backlog if journal is not None else 0
        self.subscribers: dict[Any, Subscriber] = {}
        self._live: list[Record] = []
        self._scheduled = False
        self._encoder = msgspec.msgpack.Encoder()
        self._loop: asyncio.AbstractEventLoop | None = None
        # Set by the daemon: internal events also reach the catch-all `event` observers.
        self.on_internal: Callable[[str, dict[str, Any], str | None, str | None], None] | None = None

    # ---------------------------------------------------------- publishing

    def publish(
        self,
        kind: str,
        point: str,
        session: str | None,
        project: str | None,
        payload: dict[str, Any],
        outcome: Any = None,
        duration: float | None = None,
        size: int = _SMALL,
    ) -> None:
        """Put one event on the bus. The hot path: no encoding, no I/O, no await."""
        self.seq = seq = self.seq + 1
        rec = (seq, _now(), kind, point, session, project, payload, outcome, duration, size)
        ring = self.ring
        ring.append(rec)
        self.ring_bytes += size
        if len(ring) > self.history or self.ring_bytes > self.history_bytes:
            self._trim()
        jq = self._journal_queue
        if jq is not None:
            n = len(jq)
            if n >= self._journal_backlog:
                self.journal.dropped += 1  # type: ignore[union-attr]  # the disk is stuck: bound the memory
            else:
                if n == 0:
                    self.journal.wake.set()  # type: ignore[union-attr]  # once per batch, not per event
                jq.append(rec)
        if self.subscribers:
            self._live.append(rec)
            if not self._scheduled:
                self._scheduled = True
                self._loop.call_later(DISPATCH_DELAY, self._dispatch)  # type: ignore[union-attr]

    def _trim(self) -> None:
        ring = self.ring
        while len(ring) > 1 and (len(ring) > self.history or self.ring_bytes > self.history_bytes):
            self.ring_bytes -= ring.popleft()[9]

    def internal(self, point: str, payload: dict[str, Any], session: str | None = None, project: str | None = None) -> None:
        """A daemon happening (``hookd.*``), on the same bus as everything else."""
        self.publish("internal", point, session, project, payload)
        if self.on_internal is not None:
            self.on_internal(point, payload, session, project)

    def hook_error(self, hook: Any, ctx: Any, code: str, message: str) -> None:
        """The engine's on_hook_error callback."""
        point = "hookd.hook.timeout" if code == "timeout" else "hookd.hook.error"
        payload = {
            "hook": hook.name,
            "scope": hook.scope,
            "source": hook.source,
            "type": hook.type,
            "point": ctx.point,
            "message": message,
        }
        self.publish("internal", point, ctx.session, ctx.project, payload)

    # ------------------------------------------------------------ fan-out

    def frame(self, msg: m.Reply) -> bytes:
        buf = bytearray(HEADER.size)
        self._encoder.encode_into(msg, buf, HEADER.size)
        HEADER.pack_into(buf, 0, len(buf) - HEADER.size)
        return bytes(buf)

    def _dispatch(self) -> None:
        self._scheduled = False
        # Loops because a fan-out can itself publish (hookd.subscriber.behind).
        while self._live:
            batch, self._live = self._live, []
            subs = list(self.subscribers.values())
            frames: list[bytes | None] = [None] * len(batch)
            for sub in subs:
                match = sub.filter
                for i, rec in enumerate(batch):
                    if match(rec):
                        frame = frames[i]
                        if frame is None:
                            frame = frames[i] = self.frame(to_event(rec))
                        sub.offer(rec[0], frame)
                sub.pump()

    # --------------------------------------------------------- subscribing

    def subscribe(self, conn: Any, req: m.Subscribe) -> m.Subscribed:
        if conn in self.subscribers:
            raise BusError(m.ErrorCode.CONFLICT, "this connection is already subscribed; unsubscribe first or open another connection")
        if req.since_seq is not None and req.since_age is not None:
            raise BusError(m.ErrorCode.BAD_REQUEST, "give since_seq or since_age, not both")
        for project in req.projects:
            if not os.path.isabs(project):
                raise BusError(m.ErrorCode.BAD_REQUEST, f"projects must be absolute paths, got {project!r}")
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        # Deliver what is pending to the others first: from here on, this subscriber's
        # history comes from the ring and its live events from later fan-outs, so it
        # sees every event exactly once.
        self._dispatch()
        flt = Filter(req.points, req.sessions, req.projects)
        count = min(req.queue or self.queue, self.max_queue)
        size = min(req.queue_bytes or self.queue_bytes, self.max_queue_bytes)
        sub = Subscriber(self, conn, flt, count, size)
        self._replay(sub, req)
        sub.mark(self.frame(m.Live(self.seq)))
        if req.follow:
            self.subscribers[conn] = sub
        conn.stream = sub  # pause/resume_writing reach it (also for a replay-only stream)
        oldest = self.ring[0][0] if self.ring else self.seq + 1
        # The reply goes out with this read's batch; the stream starts right after it.
        asyncio.get_running_loop().call_soon(sub.start)
        return m.Subscribed(req.id, self.seq, oldest, count, size)

    def _replay(self, sub: Subscriber, req: m.Subscribe) -> None:
        ring = self.ring
        if not ring:
            return
        if req.since_seq is not None:
            oldest = ring[0][0]
            start = max(req.since_seq, self.first_seq)
            if start < oldest:
                # Evicted from memory during this daemon's life: say so (the journal has them).
                sub.mark(self.frame(m.Gap(oldest - start, start, oldest - 1, "history")))
            events: Iterable[Record] = itertools.islice(ring, max(0, req.since_seq - oldest), None)
        elif req.since_age is not None:
            cutoff = time.time() - req.since_age
            n = 0
            for rec in reversed(ring):
                if rec[1] < cutoff:
                    break
                n += 1
            events = itertools.islice(ring, len(ring) - n, None)
        else:
            return
        flt = sub.filter
        for rec in events:
            if flt(rec):
                sub.offer(rec[0], self.frame(to_event(rec)))

    def unsubscribe(self, conn: Any, req: m.Unsubscribe) -> m.Done:
        sub = self.detach(conn)
        if sub is None:
            raise BusError(m.ErrorCode.NOT_FOUND, "this connection has no subscription")
        return m.Done(req.id, sub.delivered)

    def detach(self, conn: Any) -> Subscriber | None:
        sub = self.subscribers.pop(conn, None)
        stream = getattr(conn, "stream", None)
        if stream is not None:
            stream.closed = True
            stream.queue.clear()
            conn.stream = None
        return sub

    # ------------------------------------------------------------ lifetime

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.journal is not None:
            try:
                self.journal.start()
            except OSError as exc:
                log.error("cannot open the journal; running without it", path=self.journal.path, error=str(exc))
                self.journal = None
                self._journal_queue = None

    def close(self) -> None:
        self._dispatch()  # subscribers still connected see the last events (hookd.daemon.stopped)
        if self.journal is not None:
            self.journal.close()


def make_bus(settings: Any) -> Bus:
    """The bus a daemon with these Settings runs, journal included; seq continues from the journal."""
    journal = None
    first_seq = 1
    if settings.journal:
        path = settings.journal_path or journal_files.default_path()
        journal = Journal(path, settings.journal_max_bytes, settings.journal_keep, to_event)
        try:
            last = journal_files.last_event(path)
        except OSError:
            last = None
        if last is not None:
            first_seq = last.seq + 1
    return Bus(
        history=settings.history,
        history_bytes=settings.history_bytes,
        queue=settings.subscriber_queue,
        queue_bytes=settings.subscriber_queue_bytes,
        journal=journal,
        first_seq=first_seq,
    )
