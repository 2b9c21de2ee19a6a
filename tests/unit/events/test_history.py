"""The history ring: whatever the passes and the bounds, it keeps, trims and gives back what a
plain list of records trimmed one event at a time would (its trim takes a pass's oldest together),
read back from the bodies it keeps as the live stream selects them, with a pause every
PAUSE_EVERY bodies read."""

from __future__ import annotations

import itertools
from collections import deque

import pytest
from hookd_client.framing import HEADER
from hookd_client.messages import Event
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.events import history as history_module
from hookd.events.eventcodec import UNENCODABLE, encode_pass
from hookd.events.history import RECORD_OVERHEAD, History, records

_KINDS = [("emit", "tool.execute.after"), ("emit", "custom.x"), ("internal", "hookd.daemon.started"), ("internal", UNENCODABLE)]
# (time, kind and point, session, project, payload): markers among ordinary events.
_PASS = st.lists(
    st.tuples(
        st.floats(min_value=0, max_value=100, allow_nan=False),  # times may go back (a clock step)
        st.sampled_from(_KINDS),
        st.sampled_from([None, "s1", "s2"]),
        st.sampled_from([None, "/p"]),
        st.dictionaries(st.sampled_from(["a", "point", "reason"]), st.one_of(st.text(max_size=200), st.integers()), max_size=3),
    ),
    min_size=1,
    max_size=20,
)


class _Reference:
    """A ring of one record per event, trimmed as the bus always trimmed it."""

    def __init__(self, max_count: int, max_bytes: int) -> None:
        self.max_count, self.max_bytes = max_count, max_bytes
        self.ring: deque[tuple] = deque()
        self.bytes = 0

    def add(self, records: list[tuple]) -> None:
        self.ring.extend(records)
        self.bytes += sum(len(r[5]) + HEADER.size + RECORD_OVERHEAD for r in records)
        while len(self.ring) > max(self.max_count, 1):
            self.bytes -= len(self.ring.popleft()[5]) + HEADER.size + RECORD_OVERHEAD
        while len(self.ring) > 1 and self.bytes > self.max_bytes:
            self.bytes -= len(self.ring.popleft()[5]) + HEADER.size + RECORD_OVERHEAD

    def since_seq(self, seq: int) -> list[tuple]:
        return list(self.ring)[max(0, seq - self.ring[0][0]) :] if self.ring else []

    def since_time(self, cutoff: float) -> list[tuple]:
        n = len(list(itertools.takewhile(lambda r: r[1] >= cutoff, reversed(self.ring))))
        return list(self.ring)[len(self.ring) - n :]


def _expected(ev: Event, body: bytes) -> tuple:
    """The record ``ev`` is selected by, written out: a marker by the point it stands for."""
    point = ev.point
    if ev.kind == "internal" and point == UNENCODABLE and isinstance(ev.payload.get("point"), str):
        point = ev.payload["point"]
    return (ev.seq, ev.time, point, ev.session, ev.project, body)


def _framed(recs: list[tuple]) -> list[tuple]:
    return [(*r[:5], HEADER.pack(len(r[5])) + r[5]) for r in recs]


def _read(lazy) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [r for r in lazy if r is not None]


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
        expected = [_expected(ev, body) for ev, body in zip(encoded, bodies, strict=True)]  # markers for those refused
        assert records(encoded, bodies) == _framed(expected)  # the live stream selects as the ring reads back
        history.add(bodies, sum(map(len, bodies)) + HEADER.size * len(bodies), events[-1].seq)
        reference.add(expected)
        assert list(history) == list(reference.ring)
        assert len(history) == len(reference.ring) and history.bytes == reference.bytes
        assert history.oldest() == reference.ring[0][0]
        assert len(history) <= max_count and (len(history) == 1 or history.bytes <= max_bytes)
        assert _read(history.since_seq(since)) == reference.since_seq(since)
        assert history.bodies_since_seq(since) == [r[5] for r in reference.since_seq(since)]
        assert _read(history.since_time(cutoff)) == reference.since_time(cutoff)


def _bodies(n: int, when=float) -> list[bytes]:  # type: ignore[no-untyped-def]
    return encode_pass([Event(i, when(i), "emit", "p", payload={"x": "y" * i}) for i in range(1, n + 1)])[0]


def test_a_pass_trimmed_in_part_keeps_its_newest_events_and_their_bodies() -> None:
    history = History(5, 1 << 20)
    bodies = _bodies(8)
    history.add(bodies, sum(map(len, bodies)) + 8 * HEADER.size, 8)
    assert [r[0] for r in history] == [4, 5, 6, 7, 8] and [r[5] for r in history] == bodies[3:]
    assert history.bytes == sum(map(len, bodies[3:])) + 5 * (HEADER.size + RECORD_OVERHEAD)
    assert [r[0] for r in _read(history.since_seq(6))] == [6, 7, 8] and [r[0] for r in _read(history.since_seq(1))] == [4, 5, 6, 7, 8]
    assert [r[0] for r in _read(history.since_time(7.0))] == [7, 8]


def test_a_read_back_pauses_every_few_bodies_and_reads_from_its_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history_module, "PAUSE_EVERY", 3)
    history = History(100, 1 << 20)
    bodies = _bodies(8)
    history.add(bodies, sum(map(len, bodies)) + 8 * HEADER.size, 8)
    by_seq, by_time = history.since_seq(1), history.since_time(0.0)
    more = _bodies(2)
    history.add(more, 0, 10)  # what comes in after the read began is not in it
    assert [None if r is None else r[0] for r in by_seq] == [1, 2, 3, None, 4, 5, 6, None, 7, 8]
    assert [None if r is None else r[0] for r in by_time] == [None, None, 1, 2, 3, 4, 5, 6, 7, 8]  # pauses while it looks back


def test_a_marker_is_read_back_as_the_point_it_stands_for() -> None:
    history = History(10, 1 << 20)
    marker = Event(1, 1.0, "internal", UNENCODABLE, "s1", "/p", {"point": "tool.execute.after", "kind": "emit", "reason": "r"})
    bodies, _ = encode_pass([marker])
    history.add(bodies, len(bodies[0]) + HEADER.size, 1)
    assert [r[:5] for r in history] == [(1, 1.0, "tool.execute.after", "s1", "/p")]
    assert records([marker], bodies)[0][:5] == (1, 1.0, "tool.execute.after", "s1", "/p")


def test_an_empty_ring_has_no_oldest_and_nothing_to_give() -> None:
    history = History(10, 1000)
    assert history.oldest() is None and list(history) == [] and _read(history.since_seq(1)) == [] == history.bodies_since_seq(1)
    assert _read(history.since_time(0.0)) == []
