"""The history ring: the newest events as their msgpack bodies, for subscribers that ask for the past.

It keeps at most ``max_count`` events and, past the newest one, about ``max_bytes`` of them
(each event's frame plus RECORD_OVERHEAD). Seqs in it are consecutive: the bus hands out every
seq to one event and every event comes here, in order, so an event's place in the ring follows
from its seq.

The ring holds each event's body and nothing else: what a subscription filters on (its seq,
time, point, session and project) is read back from the bodies when the past is asked for, which
is rare, rather than kept beside every event, which is not: a tuple per event cost a busy daemon
7-9% of its CPU per pipelined emit. Reading back costs about 1 us per event replayed (a full
ring of 10,000, about 10 ms); an unfiltered replay from a seq reads nothing back.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import chain, islice

import msgspec
from hookd_client.framing import HEADER
from hookd_client.messages import Event

from .eventcodec import UNENCODABLE
from .subscriber import Record

__all__ = ["RECORD_OVERHEAD", "History", "record", "records"]

# What a ring entry costs besides its frame: the body's bytes object and its slot in the deque.
RECORD_OVERHEAD = 48

_pack = HEADER.pack


class _Head(msgspec.Struct):
    """What a subscription filters on, read back from an event's body (the payload is skipped)."""

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


def records(events: list[Event], bodies: list[bytes], markers: bool = False) -> list[Record]:
    """A pass's events as the live stream selects them: (seq, time, point, session, project,
    frame), each frame its msgpack body under its length header. ``markers``: some of the
    events are markers for events the encoder refused (see :func:`record`)."""
    if markers:
        return [
            record(ev.seq, ev.time, ev.kind, ev.point, ev.session, ev.project, ev.payload, _pack(len(body)) + body)
            for ev, body in zip(events, bodies, strict=True)
        ]
    # One comprehension reads the struct's fields as plain attribute loads, which the interpreter
    # specializes: a third of what mapping five attrgetters over the pass cost per event.
    return [(ev.seq, ev.time, ev.point, ev.session, ev.project, _pack(len(body)) + body) for ev, body in zip(events, bodies, strict=True)]


def record(seq: int, time: float, kind: str, point: str, session: str | None, project: str | None, about: object, frame: bytes) -> Record:
    """One event's record; a marker that stands for an event the encoder refused is selected as
    the point it stands for (its payload says which), live and replayed alike."""
    if point == UNENCODABLE and kind == "internal" and isinstance(about, dict) and isinstance(about.get("point"), str):
        point = about["point"]
    return (seq, time, point, session, project, frame)


def _record(body: bytes) -> Record:
    head = _read_head(body)
    if head.point == UNENCODABLE and head.kind == "internal":
        about = _read_about(body).payload
        return record(head.seq, head.time, head.kind, head.point, head.session, head.project, about, _pack(len(body)) + body)
    return (head.seq, head.time, head.point, head.session, head.project, _pack(len(body)) + body)


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
        return map(_record, self._ring)

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

    def since_seq(self, seq: int) -> Iterator[Record]:
        """The events kept from ``seq`` on, oldest first."""
        ring = self._ring
        if not ring:
            return iter(())
        return map(_record, islice(ring, max(0, seq - (self._newest - len(ring) + 1)), None))

    def frames_since_seq(self, seq: int) -> Iterator[bytes]:
        """:meth:`since_seq`'s frames alone (nothing read back from them: what an unfiltered replay sends)."""
        ring = self._ring
        if not ring:
            return iter(())
        return (_pack(len(body)) + body for body in islice(ring, max(0, seq - (self._newest - len(ring) + 1)), None))

    def since_time(self, cutoff: float) -> Iterator[Record]:
        """The newest events kept whose time is ``cutoff`` or later, back to the newest one older
        than it (the clock may have stepped back: what came after that one counts), oldest first."""
        ring = self._ring
        newer: list[Record] = []
        for body in reversed(ring):
            rec = _record(body)
            if rec[1] < cutoff:
                break
            newer.append(rec)
        return reversed(newer)
