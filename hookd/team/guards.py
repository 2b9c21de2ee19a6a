"""Watching the team's bucket of guards and feeding each change to :class:`ManagedGuards`.

On every (re)connection the watch starts over: it reads the bucket's current
state as a whole (so keys deleted while hookd was away are withdrawn), then
follows each change as it comes. A connection lost mid-watch leaves the guards
in force as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import structlog

from hookd.team.link import Link
from hookd.team.managed import ManagedGuards

log = structlog.get_logger("hookd.team")

RETRY_FIRST = 0.25
RETRY_MAX = 5.0
DELETES = frozenset({"DEL", "PURGE"})


class GuardWatch:
    def __init__(self, guards: ManagedGuards, link: Link) -> None:
        self.guards = guards
        self.link = link
        self.state = "connecting"
        self.error = ""
        self._restart = asyncio.Event()
        link.on_reconnect.append(self._reconnected)
        link.on_disconnect.append(self._disconnected)

    async def _reconnected(self) -> None:
        self._restart.set()

    async def _disconnected(self) -> None:
        self.state = "offline"

    async def run(self) -> None:
        pause = RETRY_FIRST
        while True:
            self._restart.clear()
            try:
                nc = await self.link.connect()
                await self._watch(nc)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                text = f"{type(exc).__name__}: {exc}".rstrip(": ")
                if text != self.error:
                    log.warning("guards bucket unreachable; the guards in force stay", error=text)
                self.state, self.error = "failing", text
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)
            else:
                pause = RETRY_FIRST

    async def _watch(self, nc: Any) -> None:
        js = nc.jetstream(timeout=5.0)
        kv = await js.key_value(self.guards.bucket)
        watcher = await kv.watchall()
        try:
            snapshot: dict[str, tuple[int, bytes]] = {}
            newest = 0
            initial = True
            while True:
                entry = await self._next(watcher)
                if entry is _RESTART:
                    return  # reconnected: read the bucket again from its current state
                if entry is None:
                    if initial:
                        # The bucket as it is now: apply it as a whole.
                        initial = False
                        self.guards.sync(snapshot, newest)
                        snapshot.clear()
                        self.state, self.error = "watching", ""
                    continue
                newest = max(newest, entry.revision)
                value = None if entry.operation in DELETES else bytes(entry.value or b"")
                if initial:
                    if value is None:
                        snapshot.pop(entry.key, None)
                    else:
                        snapshot[entry.key] = (entry.revision, value)
                else:
                    self.guards.update(entry.key, entry.revision, value)
        finally:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2.0):
                    await watcher.stop()

    async def _next(self, watcher: Any) -> Any:
        """The watcher's next entry, or _RESTART when the connection came back (the watch must start over)."""
        get = asyncio.ensure_future(watcher.__anext__())
        restart = asyncio.ensure_future(self._restart.wait())
        try:
            done, _ = await asyncio.wait({get, restart}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (get, restart):
                if not t.done():
                    t.cancel()
        if get in done:
            return get.result()
        return _RESTART


_RESTART = object()
