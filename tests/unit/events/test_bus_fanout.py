"""The bus with real sockets and a real journal: hostile payloads cost nobody else an event,
and the history ring holds encoded bytes, not the payload's objects."""

from __future__ import annotations

import asyncio
import gc
import socket
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import msgspec
from hookd_client import messages as m
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.core.settings import Settings
from hookd.events import journal_files
from hookd.events.bus import Bus
from hookd.events.bus_setup import make_bus
from hookd.events.eventcodec import UNENCODABLE

from .stream_peers import Conn, Reader


async def subscriber(bus: Bus, points: list[str]) -> Reader:
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    conn, reader = Conn(), Reader()
    await loop.connect_accepted_socket(lambda: conn, ours)
    await loop.connect_accepted_socket(lambda: reader, theirs)
    bus.subscribe(conn, m.Subscribe(1, points=points))
    return reader


async def events_until(reader: Reader, last_seq: int, timeout: float = 20.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    while not any(isinstance(i, m.Event) and i.seq >= last_seq for i in reader.items):
        assert time.monotonic() < deadline, f"seq {last_seq} never arrived; got {reader.items[-3:]}"
        await asyncio.sleep(0.005)
    return [i for i in reader.items if isinstance(i, (m.Event, m.Gap))]


def nest(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = [value]
    return value


def surrogate_text() -> st.SearchStrategy[str]:
    return st.lists(st.one_of(st.characters(), st.integers(0xD800, 0xDFFF).map(chr)), max_size=12).map("".join)


leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**100), max_value=2**100),
    st.floats(allow_nan=False),
    surrogate_text(),
    st.binary(max_size=16),
)
hostile_value = st.one_of(
    st.recursive(
        leaf,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(surrogate_text(), inner, max_size=4)),
        max_leaves=20,
    ),
    st.integers(1, 1500).map(nest),
)
hostile_payload = st.dictionaries(surrogate_text(), hostile_value, max_size=4)


async def fan_out(payloads: list[dict[str, Any]], directory: str) -> tuple[list[Any], list[Any], list[m.Event]]:
    path = str(Path(directory) / "events.jsonl")
    bus = make_bus(Settings(socket=str(Path(directory) / "s.sock"), load_user_config=False, journal_path=path))
    bus.start()
    everything = await subscriber(bus, [])
    some = await subscriber(bus, ["custom.*"])
    await asyncio.sleep(0)  # the subscriptions start
    # One event-loop pass, one fan-out batch: hostile payloads between ordinary ones.
    for i, payload in enumerate(payloads):
        bus.publish("emit", "custom.ok", None, None, {"i": i})
        bus.publish("emit", "custom.hostile", None, None, payload)
    bus.publish("emit", "custom.ok", None, None, {"i": "last"})
    last = bus.seq
    got_all = await events_until(everything, last)
    got_some = await events_until(some, last)
    bus.close()
    return got_all, got_some, list(journal_files.read(path))


def check_stream(items: list[Any], n: int) -> None:
    assert not [i for i in items if isinstance(i, m.Gap)]
    assert [e.seq for e in items] == list(range(1, 2 * n + 2))
    for k, e in enumerate(items):
        if k % 2 == 0:
            assert e.point == "custom.ok" and e.payload == {"i": k // 2 if k < 2 * n else "last"}
        else:
            assert e.point in ("custom.hostile", UNENCODABLE)
            if e.point == UNENCODABLE:
                assert e.payload["point"] == "custom.hostile" and e.payload["reason"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(hostile_payload, min_size=1, max_size=6))
def test_hostile_payloads_never_cost_other_events_their_fan_out_or_their_journal_line(payloads: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        got_all, got_some, journaled = asyncio.run(fan_out(payloads, directory))
    n = len(payloads)
    check_stream(got_all, n)
    check_stream(got_some, n)
    assert [e.seq for e in journaled] == list(range(1, 2 * n + 2))
    assert [e.payload for e in journaled[::2]] == [{"i": i} for i in range(n)] + [{"i": "last"}]


def test_a_file_name_that_is_not_utf8_becomes_a_marker_and_the_batch_still_goes_out(tmp_path: Path) -> None:
    name = b"plugin-\xff.py".decode("utf-8", "surrogateescape")  # what os.listdir gives for such a name
    got_all, got_some, journaled = asyncio.run(fan_out([{"file": name}], str(tmp_path)))
    check_stream(got_all, 1)
    check_stream(got_some, 1)
    marker = got_all[1]
    assert marker.point == UNENCODABLE and marker.seq == 2 and "UTF-8" in marker.payload["reason"]
    assert marker.payload["payload"] == {"file": "plugin-\\xff.py"}
    assert journaled[1].point == UNENCODABLE and journaled[1].seq == 2


def test_history_keeps_encoded_bytes_not_the_payloads_objects() -> None:
    # Many small lists: each costs ~60 bytes as Python objects, 2 as msgpack.
    body = msgspec.msgpack.encode({"rows": [[i % 100] for i in range(200_000)]})
    bus = Bus(history=100, history_bytes=64 << 20)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        payload = msgspec.msgpack.decode(body)  # what the daemon decodes from a request
        bus.publish("emit", "custom.big", None, None, payload)
        del payload
        gc.collect()
        retained = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(bus.ring) == 1
    assert retained < 2 * len(body) + 64 * 1024, f"{retained} bytes retained for a {len(body)}-byte event"
    assert bus.ring.bytes >= len(body)  # the bound counts what is really kept
