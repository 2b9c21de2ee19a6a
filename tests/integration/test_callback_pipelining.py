"""Many invocations in flight on one connection (issue 5)."""

from __future__ import annotations

import asyncio
import threading

from hookd_client import AsyncClient, Client

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
