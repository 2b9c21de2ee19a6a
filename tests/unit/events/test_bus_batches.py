"""Fan-out in batches: subscribers that keep up get a pass's events in one write (or a few,
for a large pass), subscribers with the same filter share the selection and the joined bytes,
and passes are spaced by the subscribers they wake."""

from __future__ import annotations

import asyncio
from typing import Any

from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec

from hookd.events.bus import PASS_SPACING, Bus
from hookd.events.subscriber import WRITE_CHUNK


class Transport:
    """Records every write; pauses its protocol's stream past ``pause_after`` writes when asked."""

    def __init__(self, conn: Conn, pause_after: int | None = None) -> None:
        self.conn = conn
        self.writes: list[bytes] = []
        self.pause_after = pause_after

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        if self.pause_after is not None and len(self.writes) >= self.pause_after and self.conn.stream is not None:
            self.conn.stream.pause_writing()

    def is_closing(self) -> bool:
        return False


class Conn:
    def __init__(self, pause_after: int | None = None) -> None:
        self.stream: Any = None
        self.peer = 0
        self.client = "test"
        self.transport = Transport(self, pause_after)

    def events(self) -> list[m.Event]:
        decoder, codec = FrameDecoder(1 << 30), reply_codec()
        items = [codec.decode(b) for w in self.transport.writes for b in decoder.feed(w)]
        return [i for i in items if isinstance(i, m.Event)]


async def _subscribed(bus: Bus, conns: list[tuple[Conn, list[str]]]) -> None:
    for conn, points in conns:
        bus.subscribe(conn, m.Subscribe(1, points=points))
    await asyncio.sleep(0)  # the stream starts after the Subscribed reply
    for conn, _ in conns:
        conn.transport.writes.clear()  # the Live marker


def test_subscribers_with_one_filter_share_one_write_per_pass() -> None:
    async def run() -> None:
        bus = Bus()
        same = [Conn() for _ in range(3)]
        other = Conn()
        everyone = Conn()
        await _subscribed(bus, [(c, ["tool.*"]) for c in same] + [(other, ["custom.*"]), (everyone, [])])
        before = [bus.subscribers[c].delivered for c in same]
        for i in range(50):
            bus.publish("emit", "tool.execute.after" if i % 2 else "custom.x", "s", None, {"i": i})
        bus._fan_out()
        writes = [c.transport.writes for c in same]
        assert all(len(w) == 1 for w in writes), [len(w) for w in writes]
        assert writes[0][0] is writes[1][0] is writes[2][0]  # joined once, shared
        for c in same:
            assert [e.payload["i"] for e in c.events()] == list(range(1, 50, 2))
        assert [e.payload["i"] for e in other.events()] == list(range(0, 50, 2))
        assert len(everyone.transport.writes) == 1
        assert [e.payload["i"] for e in everyone.events()] == list(range(50))
        assert [bus.subscribers[c].delivered - n for c, n in zip(same, before, strict=True)] == [25, 25, 25]

    asyncio.run(run())


def test_a_pass_larger_than_a_write_chunk_goes_out_in_order_and_whole() -> None:
    async def run() -> None:
        bus = Bus()
        conn = Conn()
        await _subscribed(bus, [(conn, [])])
        blob = "x" * 1000
        n = 3 * WRITE_CHUNK // 1000
        for i in range(n):
            bus.publish("emit", "custom.big", None, None, {"i": i, "blob": blob})
        bus._fan_out()
        assert len(conn.transport.writes) > 1  # chunked, not one write of everything
        assert max(len(w) for w in conn.transport.writes) <= WRITE_CHUNK + 2000
        assert [e.payload["i"] for e in conn.events()] == list(range(n))

    asyncio.run(run())


def test_a_large_pass_is_joined_once_for_all_and_a_pause_mid_way_queues_the_rest_in_order() -> None:
    async def run() -> None:
        bus = Bus()
        slow, fast = Conn(), Conn()
        await _subscribed(bus, [(slow, []), (fast, [])])
        slow.transport.pause_after = 1  # the first chunk fills its buffer
        blob = "y" * 1000
        n = 3 * WRITE_CHUNK // 1000
        for i in range(n):
            bus.publish("emit", "custom.big", None, None, {"i": i, "blob": blob})
        bus._fan_out()
        assert len(fast.transport.writes) > 1
        assert slow.transport.writes[0] is fast.transport.writes[0]  # the same joined bytes
        sub = bus.subscribers[slow]
        assert sub.paused and len(sub.queue) + sub.delivered - 1 == n and not sub.missed  # the Live marker counts
        assert [e.payload["i"] for e in fast.events()] == list(range(n))
        slow.transport.pause_after = None
        sub.resume_writing()
        assert [e.payload["i"] for e in slow.events()] == list(range(n))

    asyncio.run(run())


def test_a_subscriber_paused_mid_stream_queues_the_rest_and_loses_nothing_within_its_bound() -> None:
    async def run() -> None:
        bus = Bus()
        slow, fast = Conn(), Conn()
        await _subscribed(bus, [(slow, []), (fast, [])])
        slow.transport.pause_after = 1  # the next write fills its buffer
        for i in range(10):
            bus.publish("emit", "custom.a", None, None, {"i": i})
        bus._fan_out()  # one write each; the slow one's transport pauses after it
        for i in range(10, 20):
            bus.publish("emit", "custom.a", None, None, {"i": i})
        bus._fan_out()
        sub = bus.subscribers[slow]
        assert sub.paused and len(sub.queue) == 10  # waits, bounded, in order
        assert [e.payload["i"] for e in fast.events()] == list(range(20))
        slow.transport.pause_after = None
        sub.resume_writing()
        assert [e.payload["i"] for e in slow.events()] == list(range(20))

    asyncio.run(run())


def test_passes_are_spaced_by_the_subscribers_they_wake_and_the_next_one_carries_all_that_waited() -> None:
    async def run() -> None:
        bus = Bus()
        conns = [Conn() for _ in range(10)]
        await _subscribed(bus, [(c, []) for c in conns])
        loop = asyncio.get_running_loop()
        bus.publish("emit", "custom.a", None, None, {"i": 0})
        before = loop.time()
        bus._fan_out()
        assert all(len(c.transport.writes) == 1 for c in conns)
        # Ten subscribers woken: the next pass waits ten times as long as after waking one.
        assert bus._next_pass >= before + 10 * PASS_SPACING
        for i in range(1, 6):
            bus.publish("emit", "custom.a", None, None, {"i": i})
        bus._dispatch()  # the timer, too soon after the last pass: nothing goes out yet
        assert all(len(c.transport.writes) == 1 for c in conns)
        deadline = loop.time() + 60
        while any(len(c.transport.writes) < 2 for c in conns):
            assert loop.time() < deadline, "the waiting events never went out"
            await asyncio.sleep(0.005)
        for c in conns:
            assert len(c.transport.writes) == 2  # one write for the five that waited
            assert [e.payload["i"] for e in c.events()] == list(range(6))
        assert not bus._live

    asyncio.run(run())


def test_a_new_subscriber_does_not_wait_for_the_pacing_to_get_what_was_pending_to_the_others() -> None:
    async def run() -> None:
        bus = Bus()
        first = Conn()
        await _subscribed(bus, [(first, [])])
        bus.publish("emit", "custom.a", None, None, {"i": 0})
        bus._fan_out()
        bus.publish("emit", "custom.a", None, None, {"i": 1})
        late = Conn()
        bus.subscribe(late, m.Subscribe(1))
        assert [e.payload["i"] for e in first.events()] == [0, 1]  # at once, before the pacing allows a pass
        bus.publish("emit", "custom.a", None, None, {"i": 2})
        deadline = asyncio.get_running_loop().time() + 60
        while not late.events():
            assert asyncio.get_running_loop().time() < deadline, "the live event never reached the new subscriber"
            await asyncio.sleep(0.005)
        assert [e.payload["i"] for e in late.events()] == [2]  # exactly once, live only
        assert [e.payload["i"] for e in first.events()] == [0, 1, 2]

    asyncio.run(run())
