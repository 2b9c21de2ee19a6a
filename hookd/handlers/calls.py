"""Calls: emit and decide.

Each answers at once (a Reply) when nothing has to wait, which is the common
case (no hooks, or observers only), and returns a coroutine otherwise.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from hookd_client import messages as m

from ..registry import CallContext, Plan
from .common import Handler, RequestError, Result, point_arg, project_arg

if TYPE_CHECKING:
    from ..daemon import Daemon

ObserverTasks = list[asyncio.Task[m.HookError | None]]


class Calls:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.Emit: self.emit, m.Decide: self.decide}

    def emit(self, conn: Any, req: m.Emit) -> Result:
        d = self.d
        point_arg(req.point)
        project = project_arg(req.project)
        plan = d.registry.plan(req.point, req.session, project)
        plugins = d.plugins
        if plugins.first_loads and (loading := plugins.first_loads_for(d.registry.project_for(req.session, project))):
            return self._emit_after_plugins(conn, req, loading)
        # The hot path (bench row 5): nothing to run, so no call context and no engine.
        # Whatever must see every call (the event bus) is done before this return.
        if not plan.observers:
            d.engine.counters.emits += 1
            project = d.registry.project_for(req.session, project)
            d.bus.publish("emit", req.point, req.session, project, req.payload, size=getattr(conn, "body_size", 0))
            return m.Accepted(req.id)
        ctx = CallContext(req.point, req.session, d.registry.project_for(req.session, project))
        tasks = d.engine.emit(plan, req.payload, ctx)
        d.bus.publish("emit", req.point, ctx.session, ctx.project, req.payload, size=getattr(conn, "body_size", 0))
        if not req.wait or not tasks:
            return m.Accepted(req.id, len(tasks))
        return self._emit_wait(req.id, tasks)

    def _emit_after_plugins(self, conn: Any, req: m.Emit, loading: list[asyncio.Task[None]]) -> Result:
        """An emit while a scope's plugins first load: accepted (and on the bus) now; its observers
        run once the load is done (bounded), so the plugins do not miss the scope's first events."""
        d = self.d
        project = d.registry.project_for(req.session, project_arg(req.project))
        ctx = CallContext(req.point, req.session, project)
        d.bus.publish("emit", req.point, req.session, project, req.payload, size=getattr(conn, "body_size", 0))

        async def observe() -> ObserverTasks:
            await d.plugins.wait_first_loads(loading)
            return d.engine.emit(d.registry.plan(req.point, req.session, project), req.payload, ctx)

        if req.wait:
            return self._emit_wait_after(req.id, observe())
        d.background(observe(), "emit after a first plugin load")
        return m.Accepted(req.id)

    async def _emit_wait_after(self, rid: int, started: Awaitable[ObserverTasks]) -> m.Reply:
        return await self._emit_wait(rid, await started)

    async def _emit_wait(self, rid: int, tasks: ObserverTasks) -> m.Reply:
        results = await asyncio.gather(*tasks)
        return m.Accepted(rid, len(tasks), [e for e in results if e is not None])

    def decide(self, conn: Any, req: m.Decide) -> Result:
        d = self.d
        point = point_arg(req.point)
        if point.kind != "decision":
            raise RequestError(
                m.ErrorCode.WRONG_KIND,
                f"{req.point!r} is an observer point; use emit (decision points: `hookd points`)",
            )
        project = project_arg(req.project)
        plan = d.registry.plan(req.point, req.session, project)
        plugins = d.plugins
        if plugins.first_loads and (loading := plugins.first_loads_for(d.registry.project_for(req.session, project))):
            ctx = CallContext(req.point, req.session, d.registry.project_for(req.session, project))
            return self._decide_after_plugins(req, loading, ctx, getattr(conn, "body_size", 0))
        # The hot path (bench row 1): an empty outcome, which is also what the bus records
        # (it reads decision, reason, decided_by and errors, as from a ChainState).
        if not plan.decisions and not plan.observers:
            d.engine.counters.decides += 1
            reply = m.Outcome(req.id)
            project = d.registry.project_for(req.session, project)
            d.bus.publish("decide", req.point, req.session, project, req.payload, reply, size=getattr(conn, "body_size", 0))
            return reply
        ctx = CallContext(req.point, req.session, d.registry.project_for(req.session, project))
        if not plan.decisions:
            state = d.engine.decided_without_hooks(plan, req.payload, ctx)
            d.bus.publish("decide", req.point, ctx.session, ctx.project, req.payload, state, size=getattr(conn, "body_size", 0))
            return state.outcome(req.id)
        return self._decide(req.id, plan, req.payload, ctx, getattr(conn, "body_size", 0))

    async def _decide(self, rid: int, plan: Plan, payload: dict[str, Any], ctx: CallContext, size: int = 0) -> m.Reply:
        started = time.perf_counter()
        state = await self.d.engine.decide(plan, payload, ctx)
        took = round((time.perf_counter() - started) * 1000, 3)
        self.d.bus.publish("decide", ctx.point, ctx.session, ctx.project, payload, state, took, size)
        return state.outcome(rid)

    async def _decide_after_plugins(self, req: m.Decide, loading: list[asyncio.Task[None]], ctx: CallContext, size: int) -> m.Reply:
        """The first calls of a scope wait (bounded) for its plugins, so they are not skipped while their host starts."""
        await self.d.plugins.wait_first_loads(loading)
        plan = self.d.registry.plan(req.point, req.session, ctx.project)
        return await self._decide(req.id, plan, req.payload, ctx, size)
