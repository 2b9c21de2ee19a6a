"""Fan-out in batches: subscribers that keep up get a pass's events in one write, and
subscribers with the same filter share the selection and the joined bytes."""

from __future__ import annotations

import asyncio
from typing import Any

from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec

from hookd.bus import Bus
from hookd.subscriber import WRITE_CHUNK


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
        bus._dispatch()
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
        bus._dispatch()
        assert len(conn.transport.writes) > 1  # chunked, not one write of everything
        assert max(len(w) for w in conn.transport.writes) <= WRITE_CHUNK + 2000
        assert [e.payload["i"] for e in conn.events()] == list(range(n))

    asyncio.run(run())


def test_a_subscriber_paused_mid_stream_queues_the_rest_and_loses_nothing_within_its_bound() -> None:
    async def run() -> None:
        bus = Bus()
        slow, fast = Conn(), Conn()
        await _subscribed(bus, [(slow, []), (fast, [])])
        slow.transport.pause_after = 1  # the next write fills its buffer
        for i in range(10):
            bus.publish("emit", "custom.a", None, None, {"i": i})
        bus._dispatch()  # one write each; the slow one's transport pauses after it
        for i in range(10, 20):
            bus.publish("emit", "custom.a", None, None, {"i": i})
        bus._dispatch()
        sub = bus.subscribers[slow]
        assert sub.paused and len(sub.queue) == 10  # waits, bounded, in order
        assert [e.payload["i"] for e in fast.events()] == list(range(20))
        slow.transport.pause_after = None
        sub.resume_writing()
        assert [e.payload["i"] for e in slow.events()] == list(range(20))

    asyncio.run(run())
