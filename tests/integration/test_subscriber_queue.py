"""A subscriber's `queue` bounds what waits in the daemon while its socket is full, not what it may
receive: a reader that keeps up loses nothing however small its queue."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from hookd_client import AsyncClient, Client, Event, Gap

GUARD = 120.0


def _read_all(sub: Any, got: list[Any]) -> None:
    for item in sub:
        got.append(item)
        if isinstance(item, Event) and item.payload.get("end"):
            return


async def _burst(path: str, n: int, window: int) -> None:
    async with AsyncClient(path) as c:
        for start in range(0, n, window):
            await asyncio.gather(*(c.emit("custom.burst", {"i": i}) for i in range(start, min(n, start + window))))
        await c.emit("custom.burst", {"end": True})


def test_a_reader_that_keeps_up_loses_nothing_with_a_tiny_queue(daemon) -> None:  # type: ignore[no-untyped-def]
    n = 5_000
    sub = Client(daemon.socket).subscribe(["custom.burst"], queue=2, queue_bytes=1024, timeout=30).open()
    assert sub.subscribed is not None and sub.subscribed.queue == 2
    got: list[Any] = []
    reader = threading.Thread(target=_read_all, args=(sub, got), daemon=True)
    reader.start()
    asyncio.run(asyncio.wait_for(_burst(daemon.socket, n, 64), GUARD))
    reader.join(GUARD)
    sub.close()
    assert not [g for g in got if isinstance(g, Gap)]
    assert [e.payload.get("i") for e in got[:n]] == list(range(n))
