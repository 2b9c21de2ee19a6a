"""Many invocations in flight on one connection."""

from __future__ import annotations

import asyncio
import os
import socket
import threading

from hookd_client import AsyncClient, Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec

POINT = "tool.approval.pre"


def test_1000_concurrent_decides_through_one_handler_on_one_connection(daemon):  # type: ignore[no-untyped-def]
    n = 1000

    async def main() -> None:
        arrived = 0
        everyone = asyncio.Event()

        async def barrier(payload: dict) -> dict:
            # Answers only once all n invocations are in flight at the same time.
            nonlocal arrived
            arrived += 1
            if arrived == n:
                everyone.set()
            await everyone.wait()
            i = payload["i"]
            return {"decision": "deny" if i % 2 else "allow", "reason": str(i), "modifiedInput": {"i": i}}

        async with AsyncClient(daemon.socket) as c:
            await c.register_decision(POINT, barrier, session="s1", timeout=60)
            outs = await asyncio.wait_for(asyncio.gather(*(c.decide(POINT, {"i": i}, session="s1") for i in range(n))), 90)
            assert arrived == n
            assert [o.reason for o in outs] == [str(i) for i in range(n)]
            assert [o.decision for o in outs] == ["deny" if i % 2 else "allow" for i in range(n)]
            assert [o.modified_input for o in outs] == [{"i": i} for i in range(n)]
            assert all(o.errors == [] for o in outs)

    asyncio.run(main())


def test_sync_client_serves_while_many_threads_call(daemon):  # type: ignore[no-untyped-def]
    with Client(daemon.socket, handler_threads=8) as c:
        c.register_decision(POINT, lambda p: {"decision": "deny", "reason": str(p["i"])}, session="s1")
        results: dict[int, str | None] = {}

        def worker(base: int) -> None:
            for i in range(base, base + 50):
                results[i] = c.decide(POINT, {"i": i}, session="s1").reason

        threads = [threading.Thread(target=worker, args=(k * 50,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert results == {i: str(i) for i in range(400)}


def test_10k_pipelined_decides_served_by_a_callback_on_the_same_connection(daemon):  # type: ignore[no-untyped-def]
    """More decides than max_inflight, all invoking a handler on the connection that sent them:
    its answers are read although requests wait, so none times out."""
    n = 10_000

    async def main() -> None:
        async def handler(payload: dict) -> dict:
            return {"decision": "deny", "reason": str(payload["i"])}

        async with AsyncClient(daemon.socket) as c:
            assert c.welcome is not None and n > c.welcome.limits.max_inflight
            await c.register_decision(POINT, handler, session="s1", timeout=600)
            outs = await asyncio.wait_for(asyncio.gather(*(c.decide(POINT, {"i": i}, session="s1") for i in range(n))), 300)
            assert [o.reason for o in outs] == [str(i) for i in range(n)]
            assert all(o.decision == "deny" and o.errors == [] for o in outs)

    asyncio.run(main())


def test_a_single_threaded_client_pipelines_10k_decides_then_serves_their_callbacks(daemon):  # type: ignore[no-untyped-def]
    """Blocking socket, one thread: write every decide first, then answer invokes as they come."""
    n = 10_000
    codec = reply_codec()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(120)
    sock.connect(daemon.socket)
    decoder = FrameDecoder(1 << 30)
    inbox: list[m.Reply] = []

    def recv() -> m.Reply:
        while not inbox:
            data = sock.recv(1 << 16)
            assert data, "connection closed"
            inbox.extend(codec.decode(b) for b in decoder.feed(data))
        return inbox.pop(0)

    sock.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "single", os.getpid())))
    assert isinstance(recv(), m.Welcome)
    spec = m.CallbackSpec(cb=1, name="guard", point=POINT, type="decision", timeout=600, on_error="deny")
    sock.sendall(codec.encode(m.AttachHooks(2, "s1", None, [m.CallbackEntry(spec)])))
    assert isinstance(recv(), m.Attached)
    sock.sendall(b"".join(codec.encode(m.Decide(10 + i, POINT, {"i": i}, "s1")) for i in range(n)))
    outcomes: dict[int, m.Outcome] = {}
    while len(outcomes) < n:
        msg = recv()
        if isinstance(msg, m.Invoke):
            sock.sendall(codec.encode(m.InvokeResult(msg.call, m.Decision("deny", reason=str(msg.payload["i"])))))
        else:
            assert isinstance(msg, m.Outcome), msg
            assert msg.id not in outcomes, "two replies to one request"
            outcomes[msg.id] = msg
    assert sorted(outcomes) == [10 + i for i in range(n)]
    assert all(o.decision == "deny" and o.reason == str(rid - 10) and not o.errors for rid, o in outcomes.items())
    sock.close()
