"""Internal events shown to the catch-all `event` observers: the one step every daemon happening
takes after the bus publishes it (the bus is made with ``observe=InternalObservers.show``)."""

from __future__ import annotations

import asyncio
import contextvars
from typing import Any

from hookd.core.hooks import CallContext
from hookd.core.registry import Registry
from hookd.engine.engine import Engine

# Set inside the tasks that show internal events to `event` observers: what those
# observers cause (their own failures, say) is published but not shown to them again,
# so a failing catch-all observer cannot feed itself an endless stream of errors.
_OBSERVING_INTERNAL: contextvars.ContextVar[bool] = contextvars.ContextVar("observing_internal", default=False)


class InternalObservers:
    """Shows each internal event to the observers its point has (`event` sees every bus event)."""

    def __init__(self, registry: Registry, engine: Engine) -> None:
        self.registry = registry
        self.engine = engine
        self.closing = False  # once a stop began, nothing new is started

    def show(self, point: str, payload: dict[str, Any], session: str | None, project: str | None) -> None:
        if _OBSERVING_INTERNAL.get() or self.closing:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (start-up before the loop, unit tests)
        plan = self.registry.plan(point, session, project)
        if not plan.observers:
            return
        token = _OBSERVING_INTERNAL.set(True)
        try:  # the observer tasks copy this context, flag included
            self.engine.observe(plan.observers, payload, CallContext(point, session, project))
        finally:
            _OBSERVING_INTERNAL.reset(token)
