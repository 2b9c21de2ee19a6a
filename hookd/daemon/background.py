"""Work the daemon runs in the background and holds until it ends (reloads, loads, an emit waiting
for its project): a reference kept so it is never collected half-way, what it raises logged."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog

log = structlog.get_logger("hookd.daemon")


class Background:
    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()

    def run(self, work: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run ``work`` as a task held until it ends; what it raises is logged."""
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(lambda t: self._done(t, what))
        return task

    def _done(self, task: asyncio.Task[Any], what: str) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background work failed", work=what, error=f"{type(exc).__name__}: {exc}", exc_info=exc)
