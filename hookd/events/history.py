"""The history ring: the newest events as their msgpack bodies, for subscribers that ask for the past.

It keeps at most ``max_count`` events and, past the newest one, about ``max_bytes`` of them
(each event's frame plus RECORD_OVERHEAD). Seqs in it are consecutive: the bus hands out every
seq to one event and every event comes here, in order, so an event's place in the ring follows
from its seq.

The ring holds each event's body and nothing else: what a subscription selects by (its seq,
time, point, session and project) is read back from the bodies when the past is asked for, which
is rare, rather than kept beside every event, which is not: a record per event (a tuple and a
frame, freed long cold when they left) cost a busy daemon 6-10% of its CPU per pipelined
emit. Reading back costs about 1-8 us per event, more for payloads of many small values, so what
reads back comes lazily, from a snapshot of the bodies: the subscriber reads a chunk at a time
between the loop's other work (subscriber.py), never a whole ring at once.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from itertools import chain, islice

import msgspec
from hookd_client import messages as m
from hookd_client.framing import HEADER
from hookd_client.messages import Event

from hookd.events.eventcodec import UNENCODABLE, encode
from hookd.events.subscriber import Filter, Record, Subscriber

__all__ = ["PAUSE_EVERY", "RECORD_OVERHEAD", "History", "records"]

# What a ring entry costs besides its frame: the body's bytes object and its slot in the deque.
RECORD_OVERHEAD = 48
# Bodies read back between two pauses of a lazy read (a None in what it yields): the subscriber
# lets the loop run other work at each one.
PAUSE_EVERY = 64

_pack = HEADER.pack


class _Head(msgspec.Struct):
    """What a subscription selects by, read back from an event's body (the payload is skipped)."""

    seq: int
    time: float
    kind: str
    point: str
    session: str | None = None
    project: str | None = None


class _About(msgspec.Struct):
    """A marker's payload: which point it stands for."""

    payload: dict[str, object] = {}


_read_head = msgspec.msgpack.Decoder(_Head).decode
_read_about = msgspec.msgpack.Decoder(_About).decode


def _stands_for(kind: str, point: str, about: object) -> str:
    """The point an event is selected by: its own, or for a marker (an event the encoder
    refused, replaced under its seq), the one its payload names."""
    named = about.get("point") if kind == "internal" and isinstance(about, dict) else None
    return named if isinstance(named, str) else point


def records(events: list[Event], bodies: list[bytes]) -> list[Record]:
    """A pass's events as the live stream selects them: (seq, time, point, session, project,
    frame), each frame its msgpack body under its length header, each selected by what its body
    holds, as the ring reads it back (a marker by the point it stands for)."""
    # One comprehension reads the struct's fields as plain attribute loads, which the interpreter
    # specializes: a third of what mapping five attrgetters over the pass cost per event.
    return [
        (
            ev.seq,
            ev.time,
            ev.point if ev.point != UNENCODABLE else _stands_for(ev.kind, ev.point, ev.payload),
            ev.session,
            ev.project,
            _pack(len(body)) + body,
        )
        for ev, body in zip(events, bodies, strict=True)
    ]


def _record(body: bytes) -> Record:
    """A body's record, the body itself last (framed as it is written)."""
    head = _read_head(body)
    point = head.point
    if point == UNENCODABLE:
        point = _stands_for(head.kind, point, _read_about(body).payload)
    return (head.seq, head.time, point, head.session, head.project, body)


def _paced(bodies: list[bytes]) -> Iterator[Record | None]:
    for i, body in enumerate(bodies, 1):
        yield _record(body)
        if not i % PAUSE_EVERY:
            yield None


def _back_to(bodies: list[bytes], cutoff: float) -> Iterator[Record | None]:
    newer: list[Record] = []
    for body in reversed(bodies):
        rec = _record(body)
        if rec[1] < cutoff:
            break
        newer.append(rec)
        if not len(newer) % PAUSE_EVERY:
            yield None
    yield from reversed(newer)


class History:
    """The ring (see the module's doc): ``add`` a pass, read it back from a seq or an age."""

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._newest = 0  # the seq of the newest event kept
        # Past the count bound the deque itself drops the oldest as a pass goes in; the newest event always stays.
        self._ring: deque[bytes] = deque(maxlen=max(max_count, 1))

    def __len__(self) -> int:
        return len(self._ring)

    def __iter__(self) -> Iterator[Record]:
        return map(_record, list(self._ring))

    def add(self, bodies: list[bytes], size: int, newest: int) -> None:
        """A pass's event bodies, in seq order, following the newest one here; ``size``: their
        frames' bytes; ``newest``: the seq of the pass's last event."""
        ring = self._ring
        excess = len(ring) + len(bodies) - ring.maxlen  # type: ignore[operator]
        if excess > 0:
            # Those leaving by the count bound, a pass's worth of the oldest on a busy daemon (some
            # of the pass's own when it alone passes the bound): their bytes are summed, and they are
            # dropped, in C (this runs for every event of a busy daemon once its history is full).
            self.bytes -= sum(map(len, islice(chain(ring, bodies), excess))) + (HEADER.size + RECORD_OVERHEAD) * excess
        ring.extend(bodies)
        self._newest = newest
        self.bytes += size + RECORD_OVERHEAD * len(bodies)
        # The byte bound, oldest first; the newest event always stays.
        while len(ring) > 1 and self.bytes > self.max_bytes:
            self.bytes -= len(ring.popleft()) + HEADER.size + RECORD_OVERHEAD

    def oldest(self) -> int | None:
        """The seq of the oldest event kept (None: none is)."""
        return self._newest - len(self._ring) + 1 if self._ring else None

    def bodies_since_seq(self, seq: int) -> list[bytes]:
        """The bodies kept from ``seq`` on, oldest first (a snapshot: nothing read back)."""
        oldest = self.oldest()
        return [] if oldest is None else list(islice(self._ring, max(0, seq - oldest), None))

    def since_seq(self, seq: int) -> Iterator[Record | None]:
        """The events kept from ``seq`` on, oldest first, read back lazily from a snapshot; a
        None after every PAUSE_EVERY of them."""
        return _paced(self.bodies_since_seq(seq))

    def since_time(self, cutoff: float) -> Iterator[Record | None]:
        """The newest events kept whose time is ``cutoff`` or later, back to the newest one older
        than it (the clock may have stepped back: what came after that one counts), oldest first;
        read back lazily from a snapshot, a None after every PAUSE_EVERY bodies read."""
        return _back_to(list(self._ring), cutoff)


def replay(sub: Subscriber, ring: History, first_seq: int, req: m.Subscribe) -> None:
    """What the subscription asked for from the history ring (since a seq or an age), filtered:
    a snapshot taken now, read back lazily as the subscriber writes it."""
    oldest = ring.oldest()
    if oldest is None:
        return
    flt = sub.filter
    if req.since_seq is not None:
        start = max(req.since_seq, first_seq)
        if start < oldest:
            # Evicted from memory during this daemon's life: say so (the journal has them).
            sub.replayed(encode(m.Gap(oldest - start, start, oldest - 1, "history")))
        if flt.everything:  # nothing to select by: the bodies go as they are
            sub.backlog = iter(ring.bodies_since_seq(req.since_seq))
            return
        sub.backlog = _selected(ring.since_seq(req.since_seq), flt)
    elif req.since_age is not None:
        sub.backlog = _selected(ring.since_time(time.time() - req.since_age), flt)


def _selected(records: Iterator[Record | None], flt: Filter) -> Iterator[bytes | None]:
    """The bodies of the records ``flt`` selects; the pauses pass through."""
    for rec in records:
        if rec is None:
            yield None
        elif flt(rec):
            yield rec[5]
