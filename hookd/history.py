"""The history ring: the newest events as their frames, for subscribers that ask for the past.

It keeps at most ``max_count`` events and, past the newest one, about ``max_bytes`` of them
(each event's frame plus RECORD_OVERHEAD). Seqs in it are consecutive: the bus hands out every
seq to one event and every event comes here, in order, so an event's place in the ring follows
from its seq.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from itertools import chain, islice
from operator import itemgetter

from hookd_client.framing import HEADER
from hookd_client.messages import Event

from .subscriber import Record

__all__ = ["RECORD_OVERHEAD", "History", "frame_of", "records"]

# What a ring entry costs besides its frame (the tuple, its seq and time), counted against the byte bound.
RECORD_OVERHEAD = 160

frame_of = itemgetter(5)
_pack = HEADER.pack


def records(events: list[Event], bodies: list[bytes]) -> list[Record]:
    """A pass's events as the ring and the live stream keep them: (seq, time, point, session,
    project, frame), each frame its msgpack body under its length header."""
    # One comprehension reads the struct's fields as plain attribute loads, which the interpreter
    # specializes: a third of what mapping five attrgetters over the pass cost per event.
    return [(ev.seq, ev.time, ev.point, ev.session, ev.project, _pack(len(body)) + body) for ev, body in zip(events, bodies, strict=True)]


class History:
    """The ring (see the module's doc): ``add`` a pass, read it back from a seq or an age."""

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        # Past the count bound the deque itself drops the oldest as a pass goes in; the newest event always stays.
        self._ring: deque[Record] = deque(maxlen=max(max_count, 1))

    def __len__(self) -> int:
        return len(self._ring)

    def __iter__(self) -> Iterator[Record]:
        return iter(self._ring)

    def add(self, passed: list[Record], size: int) -> None:
        """A pass's records, in seq order, following the newest one here; ``size``: their frames' bytes."""
        ring = self._ring
        excess = len(ring) + len(passed) - ring.maxlen  # type: ignore[operator]
        if excess > 0:
            # Those leaving by the count bound, a pass's worth of the oldest on a busy daemon (some
            # of the pass's own when it alone passes the bound): their bytes are summed, and they are
            # dropped, in C (this runs for every event of a busy daemon once its history is full).
            self.bytes -= sum(map(len, map(frame_of, islice(chain(ring, passed), excess)))) + RECORD_OVERHEAD * excess
        ring.extend(passed)
        self.bytes += size + RECORD_OVERHEAD * len(passed)
        # The byte bound, oldest first; the newest event always stays.
        while len(ring) > 1 and self.bytes > self.max_bytes:
            self.bytes -= len(ring.popleft()[5]) + RECORD_OVERHEAD

    def oldest(self) -> int | None:
        """The seq of the oldest event kept (None: none is)."""
        return self._ring[0][0] if self._ring else None

    def since_seq(self, seq: int) -> Iterator[Record]:
        """The events kept from ``seq`` on, oldest first."""
        ring = self._ring
        if not ring:
            return iter(())
        return islice(ring, max(0, seq - ring[0][0]), None)

    def since_time(self, cutoff: float) -> Iterator[Record]:
        """The newest events kept whose time is ``cutoff`` or later, back to the newest one older
        than it (the clock may have stepped back: what came after that one counts), oldest first."""
        ring = self._ring
        n = 0
        for rec in reversed(ring):
            if rec[1] < cutoff:
                break
            n += 1
        return islice(ring, len(ring) - n, None)
