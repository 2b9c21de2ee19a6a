"""The history ring: whatever the passes and the bounds, it keeps, trims and gives back what a
plain list of records trimmed one event at a time would (its trim takes a pass's oldest together),
and it reads back from its bodies the same records the live stream selects by."""

from __future__ import annotations

import itertools
from collections import deque

from hookd_client.framing import HEADER
from hookd_client.messages import Event
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.eventcodec import UNENCODABLE, encode_pass
from hookd.history import RECORD_OVERHEAD, History, records

_KINDS = [("emit", "tool.execute.after"), ("emit", "custom.x"), ("internal", "hookd.daemon.started"), ("internal", UNENCODABLE)]
# (time, kind and point, session, project, payload): markers among ordinary events.
_PASS = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=100, allow_nan=False),  # times may go back (a clock step)
        st.sampled_from(_KINDS),
        st.sampled_from([None, "s1", "s2"]),
        st.sampled_from([None, "/p"]),
        st.dictionaries(st.sampled_from(["a", "point", "reason"]), st.text(max_size=200), max_size=3),
    ),
    min_size=1,
    max_size=20,
)


def _frame(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body


class _Reference:
    """A ring of one record per event, trimmed as the bus always trimmed it."""

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self.max_count, self.max_bytes = max_count, max_bytes
        self.ring: deque[tuple] = deque()
        self.bytes = 0

    def add(self, records: list[tuple]) -> None:
        self.ring.extend(records)
        self.bytes += sum(len(r[5]) + RECORD_OVERHEAD for r in records)
        while len(self.ring) > max(self.max_count, 1):
            self.bytes -= len(self.ring.popleft()[5]) + RECORD_OVERHEAD
        while len(self.ring) > 1 and self.bytes > self.max_bytes:
            self.bytes -= len(self.ring.popleft()[5]) + RECORD_OVERHEAD

    def since_seq(self, seq: int) -> list[tuple]:
        return list(self.ring)[max(0, seq - self.ring[0][0]) :] if self.ring else []

    def since_time(self, cutoff: float) -> list[tuple]:
        n = len(list(itertools.takewhile(lambda r: r[1] >= cutoff, reversed(self.ring))))
        return list(self.ring)[len(self.ring) - n :]


def _expected(ev: Event, body: bytes) -> tuple:
    """The record the live stream selects ``ev`` by, written out: a marker by the point it stands for."""
    point = ev.point
    if ev.kind == "internal" and point == UNENCODABLE and isinstance(ev.payload.get("point"), str):
        point = ev.payload["point"]
    return (ev.seq, ev.time, point, ev.session, ev.project, _frame(body))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_PASS, min_size=1, max_size=12),
    st.integers(min_value=1, max_value=40),
    st.integers(min_value=0, max_value=6000),
    st.integers(min_value=-5, max_value=200),
    st.floats(min_value=0, max_value=100, allow_nan=False),
)
def test_the_ring_keeps_and_gives_back_what_a_ring_of_records_would(passes, max_count, max_bytes, since, cutoff) -> None:
    history, reference = History(max_count, max_bytes), _Reference(max_count, max_bytes)
    seq = 1
    for drawn in passes:
        events = [
            Event(seq + i, when, kind, point, session, project, payload)
            for i, (when, (kind, point), session, project, payload) in enumerate(drawn)
        ]
        seq += len(events)
        bodies, encoded = encode_pass(events)
        expected = [_expected(ev, body) for ev, body in zip(events, bodies, strict=True)]
        assert records(encoded, bodies, markers=True) == expected
        if not any(ev.point == UNENCODABLE for ev in events):
            assert records(encoded, bodies) == expected
        history.add(bodies, sum(len(r[5]) for r in expected), events[-1].seq)
        reference.add(expected)
        assert list(history) == list(reference.ring)
        assert len(history) == len(reference.ring) and history.bytes == reference.bytes
        assert history.oldest() == reference.ring[0][0]
        assert len(history) <= max_count and (len(history) == 1 or history.bytes <= max_bytes)
        assert list(history.since_seq(since)) == reference.since_seq(since)
        assert list(history.frames_since_seq(since)) == [r[5] for r in reference.since_seq(since)]
        assert list(history.since_time(cutoff)) == reference.since_time(cutoff)


def _bodies(n: int) -> list[bytes]:
    return encode_pass([Event(i, float(i), "emit", "p", payload={"x": "y" * i}) for i in range(1, n + 1)])[0]


def test_a_pass_trimmed_in_part_keeps_its_newest_events_and_their_frames() -> None:
    history = History(5, 1 << 20)
    bodies = _bodies(8)
    history.add(bodies, sum(map(len, bodies)) + 8 * HEADER.size, 8)
    assert [r[0] for r in history] == [4, 5, 6, 7, 8]
    assert [r[5] for r in history] == [_frame(body) for body in bodies[3:]]
    assert history.bytes == sum(map(len, bodies[3:])) + 5 * (HEADER.size + RECORD_OVERHEAD)
    assert [r[0] for r in history.since_seq(6)] == [6, 7, 8] and [r[0] for r in history.since_seq(1)] == [4, 5, 6, 7, 8]
    assert [r[0] for r in history.since_time(7.0)] == [7, 8]


def test_a_marker_is_read_back_as_the_point_it_stands_for() -> None:
    history = History(10, 1 << 20)
    marker = Event(1, 1.0, "internal", UNENCODABLE, "s1", "/p", {"point": "tool.execute.after", "kind": "emit", "reason": "r"})
    bodies, _ = encode_pass([marker])
    history.add(bodies, len(bodies[0]) + HEADER.size, 1)
    assert [r[:5] for r in history] == [(1, 1.0, "tool.execute.after", "s1", "/p")]


def test_an_empty_ring_has_no_oldest_and_nothing_to_give() -> None:
    history = History(10, 1000)
    assert history.oldest() is None and list(history) == [] and list(history.since_seq(1)) == [] == list(history.frames_since_seq(1))
    assert list(history.since_time(0.0)) == []
