"""Process slots for spawned hooks, with a share reserved for decision hooks.

A burst of emits to a slow observer must never make a guard wait: observers
may hold at most ``total - reserved`` processes, so the ``reserved`` share is
always free for decision hooks, which may also take any slot that is free. When
a slot frees up, a waiting decision hook gets it before any observer. Observers
that cannot start wait in their own bounded queue (first come, first served);
an observer that finds the queue full is shed (:class:`Shed`). A decision hook
is never shed: it waits for a slot, which only other decision hooks can be
holding once the observers' share is used up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque


class Shed(Exception):
    """An observer could not even queue for a process slot."""


class Slots:
    def __init__(self, total: int, reserved: int, observer_queue: int) -> None:
        if total < 1:
            raise ValueError("at least one hook process is needed")
        self.total = total
        self.reserved = min(max(reserved, 0), total - 1) if total > 1 else 0
        self.observer_queue = max(observer_queue, 0)
        self.used = 0
        self.observers = 0  # of ``used``, held by observers
        self.shed = 0  # observers turned away, ever
        self._decisions: deque[asyncio.Future[None]] = deque()
        self._waiting_observers: deque[asyncio.Future[None]] = deque()

    @property
    def observer_share(self) -> int:
        return self.total - self.reserved

    def _free_for(self, decision: bool) -> bool:
        if self.used >= self.total:
            return False
        return decision or self.observers < self.observer_share

    async def acquire(self, decision: bool) -> None:
        """Take a slot; raises Shed for an observer whose queue is full."""
        if decision:
            if not self._decisions and self._free_for(True):
                self.used += 1
                return
            queue = self._decisions
        else:
            if not self._decisions and not self._waiting_observers and self._free_for(False):
                self.used += 1
                self.observers += 1
                return
            if len(self._waiting_observers) >= self.observer_queue:
                self.shed += 1
                raise Shed(
                    f"{self.observers} observer processes are running (their share of {self.observer_share}) "
                    f"and {len(self._waiting_observers)} more are queued (the queue's bound)"
                )
            queue = self._waiting_observers
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(decision)  # granted just as it was cancelled: give it back
            else:
                with contextlib.suppress(ValueError):  # already dropped by _wake
                    queue.remove(waiter)
            raise

    def release(self, decision: bool) -> None:
        self.used -= 1
        if not decision:
            self.observers -= 1
        self._wake()

    def _wake(self) -> None:
        while self._decisions and self._free_for(True):
            waiter = self._decisions.popleft()
            if not waiter.done():
                self.used += 1
                waiter.set_result(None)
        while self._waiting_observers and not self._decisions and self._free_for(False):
            waiter = self._waiting_observers.popleft()
            if not waiter.done():
                self.used += 1
                self.observers += 1
                waiter.set_result(None)

    @property
    def queued(self) -> tuple[int, int]:
        """(decision hooks, observers) waiting for a slot."""
        return len(self._decisions), len(self._waiting_observers)
