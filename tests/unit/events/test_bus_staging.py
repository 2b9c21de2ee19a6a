"""Staged events (the hot path's decides and emits): numbered when the call is answered,
encoded later, and seen by every reader in seq order with everything published at once."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec

from hookd.events import bus as bus_module
from hookd.events import journal as journal_module
from hookd.events.bus import DISPATCH_DELAY, STAGED_BYTES, Bus
from hookd.events.journal import Journal, read


class Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return False


class Conn:
    def __init__(self) -> None:
        self.stream: Any = None
        self.peer = 0
        self.client = "test"
        self.transport = Transport()

    def events(self) -> list[m.Event]:
        decoder, codec = FrameDecoder(1 << 30), reply_codec()
        items = [codec.decode(b) for w in self.transport.writes for b in decoder.feed(w)]
        return [i for i in items if isinstance(i, m.Event)]


def _ring(bus: Bus) -> list[int]:
    return [rec[0] for rec in bus.ring]


def test_staged_and_published_events_keep_the_order_of_their_calls_everywhere(tmp_path: Path) -> None:
    async def run() -> None:
        journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, 2)
        bus = Bus(journal=journal)
        bus.start()
        first = bus.seq
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 1}, m.Outcome(7), size=50)
        bus.publish("internal", "hookd.something", None, None, {"n": 2})  # encodes the staged one first
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 3}, None, size=50)
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 4}, m.Outcome(8), size=50)
        assert bus.seq == first + 4  # numbered when answered
        conn = Conn()
        bus.subscribe(conn, m.Subscribe(1, since_seq=first + 1))  # a reader sees what is staged
        await asyncio.sleep(0)
        seen = [(e.seq, e.kind, e.payload["n"]) for e in conn.events()]
        assert seen == [(first + 1, "decide", 1), (first + 2, "internal", 2), (first + 3, "emit", 3), (first + 4, "decide", 4)]
        assert _ring(bus)[-4:] == [first + 1, first + 2, first + 3, first + 4]
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 5}, None, size=50)
        bus.close()  # a stop encodes what is staged and the journal writes it
        lines = [(e.seq, e.payload.get("n")) for e in read(journal.path) if e.seq > first]
        assert lines == [(first + i, i) for i in range(1, 6)]

    asyncio.run(run())


def test_a_staged_event_is_encoded_within_the_fan_out_delay_with_no_reader() -> None:
    async def run() -> None:
        bus = Bus()
        bus.start()
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 1}, m.Outcome(1), size=10)
        seq = bus.seq
        assert seq not in _ring(bus)
        deadline = time.monotonic() + 100 * DISPATCH_DELAY + 5  # the timer fires; bounded, not timed
        while seq not in _ring(bus) and time.monotonic() < deadline:
            await asyncio.sleep(DISPATCH_DELAY)
        assert seq in _ring(bus)

    asyncio.run(run())


def test_staged_frames_past_the_byte_bound_are_encoded_right_after_the_read_that_staged_them() -> None:
    async def run() -> None:
        bus = Bus()
        bus.start()
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 1}, None, size=STAGED_BYTES // 2)
        assert bus.seq not in _ring(bus)
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 2}, None, size=STAGED_BYTES // 2 + 1)
        # The rest of the read (its replies written) comes first, then the encoding, before anything else.
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 3}, None, size=STAGED_BYTES)
        assert bus.seq not in _ring(bus)
        await asyncio.sleep(0)
        assert _ring(bus)[-3:] == [bus.seq - 2, bus.seq - 1, bus.seq]  # decoded payloads are not held past the bound
        assert not bus._staged
        bus.publish("emit", "tool.execute.after", "s1", None, {"n": 4}, None, size=STAGED_BYTES // 2)
        await asyncio.sleep(0)
        assert bus.seq not in _ring(bus)  # under the bound again: it waits for the pass

    asyncio.run(run())


def test_a_staged_event_never_carries_the_agents_environment() -> None:
    async def run() -> None:
        bus = Bus()
        bus.start()
        payload = {"tool": "Bash", "agentEnv": {"API_KEY": "secret"}}
        bus.publish("decide", "tool.approval.pre", "s1", None, payload, m.Outcome(1), size=10)
        bus.flush()
        assert b"secret" not in list(bus.ring)[-1][5]
        assert payload["agentEnv"] == {"API_KEY": "secret"}  # the caller's dict is left as it was

    asyncio.run(run())


def test_with_no_subscriber_staged_events_reach_the_journal_writer_at_the_idle_pass(tmp_path: Path, monkeypatch: Any) -> None:
    """Nobody waits live, so staged events wait as long as the journal batches them, and that one pass
    also hands them to the writer (the journal's own timer would add its wait to the pass's)."""
    monkeypatch.setattr(bus_module, "IDLE_DELAY", 0.01)
    monkeypatch.setattr(journal_module, "BATCH_DELAY", 3600.0)  # only the idle pass can hand them over in time

    async def run() -> None:
        journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, 2)
        bus = Bus(journal=journal)
        bus.start()
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 1}, m.Outcome(1), size=10)
        seq = bus.seq
        deadline = time.monotonic() + 10
        while journal.last_written < seq and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert journal.last_written == seq
        assert [e.payload["n"] for e in read(journal.path) if e.seq == seq] == [1]
        bus.close()

    asyncio.run(run())


def test_a_subscriber_joining_while_events_wait_for_the_idle_pass_gets_the_next_ones_live(monkeypatch: Any) -> None:
    monkeypatch.setattr(bus_module, "IDLE_DELAY", 3600.0)  # an event held for the idle pass would never come

    async def run() -> None:
        bus = Bus()
        bus.start()
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 1}, m.Outcome(1), size=10)
        conn = Conn()
        bus.subscribe(conn, m.Subscribe(1, since_seq=bus.seq))  # sees the staged one from the ring
        bus.publish("decide", "tool.approval.pre", "s1", None, {"n": 2}, m.Outcome(2), size=10)
        deadline = time.monotonic() + 10
        while len(conn.events()) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(DISPATCH_DELAY)
        assert [e.payload["n"] for e in conn.events()] == [1, 2]
        bus.close()

    asyncio.run(run())
