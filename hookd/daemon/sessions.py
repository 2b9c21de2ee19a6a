"""Who owns which session, which callback hooks each connection serves, and grace timers.

A session belongs to the connection that last attached it. When that
connection closes, the session and all its hooks wait ``grace`` seconds for
the owner to come back (an agent whose connection dropped, a daemon-side
hiccup); the callback hooks it served cannot answer meanwhile, and calls name
them as not run rather than forget them. A re-attach within the grace period
claims the session again (afresh, replacing those hooks), otherwise the
session is disposed. Pure bookkeeping: the Daemon acts on what
this returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any

from hookd.core.registry import Hook
from hookd.runners.callback import CallbackRunner


class Ownership:
    def __init__(self, grace: float, expire: Callable[[str], None]) -> None:
        self.grace = grace
        self._expire = expire
        self._owned: dict[Any, set[str]] = {}
        self._served: dict[Any, dict[str, Hook]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    def claim(self, conn: Any, session_id: str, previous: Any) -> None:
        """``conn`` now owns the session (``previous`` owner, if any, no longer does)."""
        timer = self._timers.pop(session_id, None)
        if timer is not None:
            timer.cancel()
        if previous is not None and previous is not conn:
            self._discard(previous, session_id)
        self._owned.setdefault(conn, set()).add(session_id)

    def serve(self, conn: Any, hooks: Iterable[Hook]) -> None:
        served = self._served.setdefault(conn, {})
        for hook in hooks:
            served[hook.handle] = hook

    def forget_hooks(self, hooks: Iterable[Hook]) -> None:
        """Hooks that were removed: stop tracking the callback ones."""
        for hook in hooks:
            runner = hook.runner
            if isinstance(runner, CallbackRunner):
                served = self._served.get(runner.peer)
                if served is not None:
                    served.pop(hook.handle, None)
                    if not served:
                        del self._served[runner.peer]

    def forget_session(self, session_id: str, owner: Any) -> None:
        timer = self._timers.pop(session_id, None)
        if timer is not None:
            timer.cancel()
        if owner is not None:
            self._discard(owner, session_id)

    def disconnect(self, conn: Any) -> tuple[list[Hook], set[str]]:
        """The connection closed: (callback hooks to remove now, sessions now waiting out their grace)."""
        hooks = list(self._served.pop(conn, {}).values())
        orphans = self._owned.pop(conn, set())
        if orphans:
            loop = asyncio.get_running_loop()
            for session_id in orphans:
                self._timers[session_id] = loop.call_later(self.grace, self._fire, session_id)
        return hooks, orphans

    def expires_in(self, session_id: str) -> float | None:
        """Seconds until the session ends unless its owner comes back; None when it is not waiting."""
        timer = self._timers.get(session_id)
        if timer is None:
            return None
        return max(0.0, timer.when() - asyncio.get_running_loop().time())

    def waiting(self) -> int:
        """Sessions whose owner is gone and whose grace period runs."""
        return len(self._timers)

    def _fire(self, session_id: str) -> None:
        self._timers.pop(session_id, None)
        self._expire(session_id)

    def _discard(self, conn: Any, session_id: str) -> None:
        owned = self._owned.get(conn)
        if owned is not None:
            owned.discard(session_id)
            if not owned:
                del self._owned[conn]
