"""A connection's one running deadline (hello, half-frame, idle), restarted without timer churn.

A busy connection restarts its deadline at every request. Cancelling and creating
an event-loop timer each time costs more than the request itself on a fast
path, so a restart only records when it happened; the timer, when it fires,
checks that record and sleeps again for what is left. The deadline never fires
early, and fires on time for a connection that really went quiet.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Deadline:
    __slots__ = ("_handle", "_loop", "_on_expiry", "kind", "seconds", "since")

    def __init__(self, loop: asyncio.AbstractEventLoop, on_expiry: Callable[[str, float], None]) -> None:
        self._loop = loop
        self._on_expiry = on_expiry
        self._handle: asyncio.TimerHandle | None = None
        self.since = 0.0  # loop time the running deadline counts from (restart: set it to now)
        self.kind = ""
        self.seconds = 0.0

    def arm(self, kind: str, seconds: float) -> None:
        """Start ``kind`` now, replacing whatever ran (a non-positive ``seconds``: none runs)."""
        self.disarm()
        if seconds > 0:
            self.kind = kind
            self.seconds = seconds
            self.since = self._loop.time()
            self._handle = self._loop.call_later(seconds, self._fire)

    def restart(self) -> None:
        """The running deadline counts from now (cheap: no timer is touched)."""
        self.since = self._loop.time()

    def disarm(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self.kind = ""

    def _fire(self) -> None:
        left = self.since + self.seconds - self._loop.time()
        if left > 0:
            self._handle = self._loop.call_later(left, self._fire)
            return
        kind, seconds = self.kind, self.seconds
        self._handle = None
        self.kind = ""
        self._on_expiry(kind, seconds)
