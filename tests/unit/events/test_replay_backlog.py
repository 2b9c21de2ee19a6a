"""A subscription that asks for the past gets it from a snapshot of the history ring, read back a
chunk per turn of the event loop: a large history never holds the loop for long, what it sends is
in seq order and selected by the subscription's filter, and live events come after it, each once."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Any

import pytest
from hookd_client import messages as m

from hookd.events import history
from hookd.events.bus import Bus, BusError

from .stream_peers import Conn, Reader

PAD = "x" * 300
EVENTS = 4000


async def replayed(req: m.Subscribe, live_point: str) -> tuple[list[Any], int, int, bool]:
    """Subscribe to a bus with EVENTS in its history, fanning one live event out while the past
    is still being read back (when it takes long enough); return what the reader got, the live
    event's seq, the turns of the loop taken to read the past back, and whether the live event
    went out while some of the past was still to be read back."""
    loop = asyncio.get_running_loop()
    bus = Bus(history=10_000, history_bytes=64 << 20)
    for i in range(EVENTS):
        bus.publish("emit", "custom.a" if i % 2 == 0 else "custom.b", "s1", None, {"i": i, "pad": PAD})
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    conn, reader = Conn(), Reader()
    await loop.connect_accepted_socket(lambda: conn, ours)
    await loop.connect_accepted_socket(lambda: reader, theirs)
    bus.subscribe(conn, req)
    sub = conn.stream
    assert sub.backlog is not None and not [b for b in sub.replay if b]  # nothing read back yet
    turns = 0
    live_seq = 0
    during = False
    while True:
        done = sub.backlog is None and not sub.replay
        if not live_seq and (done or (turns >= 2 and not sub.paused)):
            during = not done
            bus.publish("emit", live_point, "s1", None, {"live": True})
            live_seq = bus.seq
            bus._fan_out()  # its pass now, not at the bus's next timer
        if done:
            break
        await asyncio.sleep(0)
        turns += 1
        assert turns < 100_000, "the history was never all read back"
    deadline = time.monotonic() + 20
    while not any(isinstance(i, m.Event) and i.seq == live_seq for i in reader.items):
        assert time.monotonic() < deadline, f"the live event never arrived; got {reader.items[-3:]}"
        await asyncio.sleep(0.005)
    bus.close()
    conn.transport.close()
    return reader.items, live_seq, turns, during


@pytest.mark.parametrize(
    "req",
    [
        m.Subscribe(1, points=["custom.a"], since_seq=1),
        m.Subscribe(1, points=["custom.a"], since_age=3600.0),
        m.Subscribe(1, sessions=["s1"], since_seq=1),
        m.Subscribe(1, since_seq=1),
    ],
    ids=["filtered, by seq", "filtered, by age", "by session, by seq", "everything, by seq"],
)
def test_a_large_history_is_read_back_a_chunk_per_turn_in_order_and_live_events_follow_it_once(req: m.Subscribe) -> None:
    items, live_seq, turns, during = asyncio.run(replayed(req, "custom.a"))
    assert during  # the live event was fanned out before the past was all written
    events = [i for i in items if isinstance(i, m.Event)]
    wanted = [seq for seq in range(1, EVENTS + 1) if not req.points or seq % 2 == 1]
    assert [e.seq for e in events] == [*wanted, live_seq]
    assert all(e.payload["i"] == e.seq - 1 for e in events[:-1]) and events[-1].payload == {"live": True}
    live = [i for i in items if isinstance(i, m.Live)]
    assert len(live) == 1 and items.index(live[0]) == items.index(events[-1]) - 1  # the past, the marker, then live
    assert not [i for i in items if isinstance(i, m.Gap)]
    # ~1.3 MB of history (half of it when filtered) goes in chunks of WRITE_CHUNK, or pauses every PAUSE_EVERY bodies read.
    assert turns >= 8


def test_an_unfiltered_replay_by_seq_reads_nothing_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(body: bytes) -> Any:
        raise AssertionError("an unfiltered replay by seq read a body back")

    monkeypatch.setattr(history, "_read_head", refuse)
    items, live_seq, _, _ = asyncio.run(replayed(m.Subscribe(1, since_seq=EVENTS - 9), "custom.b"))
    assert [i.seq for i in items if isinstance(i, m.Event)] == [*range(EVENTS - 9, EVENTS + 1), live_seq]


async def connected(bus: Bus, conn: Conn) -> Reader:
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    reader = Reader()
    await loop.connect_accepted_socket(lambda: conn, ours)
    await loop.connect_accepted_socket(lambda: reader, theirs)
    return reader


async def until(check: Any, what: str) -> None:
    deadline = time.monotonic() + 20
    while not check():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.001)


def test_a_replay_only_stream_holds_its_connection_until_it_has_ended() -> None:
    async def scenario() -> tuple[list[Any], list[Any], int]:
        bus = Bus(history=10_000, history_bytes=64 << 20)
        for i in range(EVENTS):
            bus.publish("emit", "custom.a" if i % 2 == 0 else "custom.b", "s1", None, {"i": i, "pad": PAD})
        conn = Conn()
        reader = await connected(bus, conn)
        bus.subscribe(conn, m.Subscribe(1, points=["custom.a"], since_seq=1, follow=False))
        sub = conn.stream
        await asyncio.sleep(0)
        assert sub.sending
        with pytest.raises(BusError) as second:  # while the first is being sent: its events are not cut off
            bus.subscribe(conn, m.Subscribe(2, points=["custom.b"], since_seq=1))
        assert second.value.code == m.ErrorCode.CONFLICT
        await until(lambda: any(isinstance(i, m.Live) for i in reader.items), "the replay never ended")
        first = list(reader.items)
        reader.items.clear()
        bus.subscribe(conn, m.Subscribe(3, points=["custom.b"], since_seq=EVENTS - 9, follow=False))  # an ordinary connection again
        await until(lambda: any(isinstance(i, m.Live) for i in reader.items), "the second replay never ended")
        second_items = list(reader.items)
        # A replay-only stream still being sent can be ended; one that has ended is no subscription.
        bus.subscribe(conn, m.Subscribe(4, since_seq=1, follow=False))
        done = bus.unsubscribe(conn, m.Unsubscribe(5))
        with pytest.raises(BusError):
            bus.unsubscribe(conn, m.Unsubscribe(6))
        bus.close()
        return first, second_items, done.count

    first, second, _ = asyncio.run(scenario())
    assert [e.seq for e in first if isinstance(e, m.Event)] == list(range(1, EVENTS + 1, 2))
    assert [e.seq for e in second if isinstance(e, m.Event)] == list(range(EVENTS - 8, EVENTS + 1, 2))
    assert isinstance(first[-1], m.Live) and isinstance(second[-1], m.Live)


def test_a_stream_made_on_a_connection_that_is_not_read_waits_for_it() -> None:
    async def scenario() -> tuple[int, int]:
        bus = Bus(history=10_000, history_bytes=64 << 20)
        for i in range(EVENTS):
            bus.publish("emit", "custom.a", "s1", None, {"i": i, "pad": PAD})
        conn = Conn()
        conn.paused_writing = True  # its transport's buffer was already past its high-water mark
        reader = await connected(bus, conn)
        bus.subscribe(conn, m.Subscribe(1, since_seq=1, follow=False))
        for _ in range(50):
            await asyncio.sleep(0)
        written = conn.transport.get_write_buffer_size() + len(reader.items)
        conn.paused_writing = False
        conn.resume_writing()
        await until(lambda: any(isinstance(i, m.Live) for i in reader.items), "the replay never ended")
        bus.close()
        return written, len([i for i in reader.items if isinstance(i, m.Event)])

    written, events = asyncio.run(scenario())
    assert written == 0 and events == EVENTS
