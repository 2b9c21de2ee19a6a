"""Calls: emit and decide.

Each answers at once (a Reply) when nothing has to wait, which is the common
case (no hooks, or observers only), and returns a coroutine otherwise. A call
on a project whose files are not loaded yet (or whose plugins are loading for
the first time) waits for that, bounded, before its plan is made; a decide
names the hooks of a project that did not load in time as not run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Coroutine
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from hookd_client import messages as m

from hookd.core.hooks import deadline_of
from hookd.core.points import POINTS
from hookd.core.registry import CallContext, Plan
from hookd.core.trace import Tracer
from hookd.daemon.handlers.common import Handler, Peer, RequestError, Result, RunsInBackground, point_arg, project_arg
from hookd.daemon.handlers.observed import Observed
from hookd.engine.engine import Leases
from hookd.engine.warm import decide_warm

if TYPE_CHECKING:
    from hookd.core.registry import Registry
    from hookd.core.settings import Settings
    from hookd.daemon.approvals import Approvals
    from hookd.daemon.handlers.files import HookFiles
    from hookd.engine.engine import Engine
    from hookd.events.bus import Bus
    from hookd.plugins.manager import PluginManager

ObserverTasks = list[asyncio.Task[m.HookError | None]]


# The catalog's points by name, each to that name's one string object, for the hot path's one
# check (custom points take the long way). A call answered at once goes on under that object, not
# the string its frame decoded to: the plan cache's key comparisons then stop at identity, and the
# history ring keeps one copy of a point's name, not one per event (on a busy daemon, ~4% of its CPU).
_NAMES = {name: name for name in POINTS}
_DECISION_NAMES = {name: name for name, point in POINTS.items() if point.kind == "decision"}
_SESSION_IDS = 4096  # session ids kept in that table at most; past it, it starts again
_SESSION_ID_CHARS = 256  # the longest id the table keeps (agents' ids are UUIDs and the like)


class CallsParts(RunsInBackground, Protocol):
    """What emit and decide use: the plan, the engine, the bus, approvals, and the loads a call waits for."""

    settings: Settings
    registry: Registry
    engine: Engine
    bus: Bus
    approvals: Approvals
    files: HookFiles
    plugins: PluginManager


class Calls:
    def __init__(self, daemon: CallsParts) -> None:
        self.d = daemon
        self.observed = Observed(daemon)
        # What every call reads, held here: each lives as long as the daemon.
        self.registry = daemon.registry
        self.bus = daemon.bus
        self.counters = daemon.engine.counters
        self.first_loads = daemon.plugins.first_loads
        # The session ids of recent calls, each to one string object (bounded): a session's calls
        # go on under that object, so the history ring keeps one copy of its id, not one per event.
        self._session_ids: dict[str, str] = {}

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.Emit: self.emit, m.Decide: self.decide, m.StatsRequest: self.observed.stats_request}

    def _session_id(self, session: str) -> str:
        """``session`` as the table's one object for it (a first call of a session enters it;
        an id too long to be worth sharing never does, so the table's memory stays small)."""
        if len(session) > _SESSION_ID_CHARS:
            return session
        ids = self._session_ids
        if len(ids) >= _SESSION_IDS:
            ids.clear()
        ids[session] = session
        return session

    def _target(self, point: str, req: m.Emit | m.Decide) -> tuple[str | None, str | None, Plan | None]:
        """The call's session (as the table's one object for it), its project (named, or its
        session's) and the plan of its hooks; no plan while the project's hook files or plugins
        first load, which the call waits for. Emit and decide find their hooks through this."""
        session = req.session
        if session is not None:
            session = self._session_ids.get(session) or self._session_id(session)
        registry = self.registry
        project = req.project
        if project is not None:
            project = project_arg(project)
        elif session is not None:
            project = registry.project_for(session, None)
        if project is not None and not registry.is_loaded(project):
            return session, project, None
        plan = registry.plan(point, session, project)
        if self.first_loads and self.d.plugins.first_loads_for(project):
            return session, project, None
        return session, project, plan

    def emit(self, conn: Peer, req: m.Emit) -> Result:
        d = self.d
        point = _NAMES.get(req.point)
        if point is None:
            point = point_arg(req.point).name  # a custom point, or an unknown one (an error naming it)
        session, project, plan = self._target(point, req)
        if plan is None:
            return self._emit_later(req, project)
        # The hot path: nothing to run, so no call context and no engine.
        # Whatever must see every call (the event bus) is done before this return.
        if not plan.observers:
            self.counters.emits += 1
            # Staged when a socket connection knows its frame's size; an HTTP hook's call is not.
            self.bus.publish("emit", point, session, project, req.payload, None, None, 0 if conn is None else conn.body_size)
            return m.Accepted(req.id)
        ctx = CallContext(point, session, project)
        tasks = d.engine.emit(plan, req.payload, ctx)
        d.bus.publish("emit", point, ctx.session, ctx.project, req.payload)
        if not req.wait or not tasks:
            return m.Accepted(req.id, len(tasks))
        return self._emit_wait(req.id, tasks)

    def _emit_later(self, req: m.Emit, project: str | None) -> Result:
        """An emit while the project first loads: accepted (and on the bus) now; its observers
        run once the load is done (bounded), so they do not miss the project's first events."""
        d = self.d
        ctx = CallContext(req.point, req.session, project)
        d.bus.publish("emit", req.point, req.session, project, req.payload)

        async def observe() -> ObserverTasks:
            await d.files.settle(project)
            return d.engine.emit(d.registry.plan(req.point, req.session, project), req.payload, ctx)

        if req.wait:
            return self._emit_wait_after(req.id, observe())
        d.background(observe(), "an emit waiting for its project to load")
        return m.Accepted(req.id)

    async def _emit_wait_after(self, rid: int, started: Any) -> m.Reply:
        return await self._emit_wait(rid, await started)

    async def _emit_wait(self, rid: int, tasks: ObserverTasks) -> m.Reply:
        results = await asyncio.gather(*tasks)
        return m.Accepted(rid, len(tasks), [e for e in results if e is not None])

    def decide(self, conn: Peer, req: m.Decide) -> Result:
        d = self.d
        point = _DECISION_NAMES.get(req.point)
        if point is None:
            if point_arg(req.point).kind != "decision":
                raise RequestError(
                    m.ErrorCode.WRONG_KIND,
                    f"{req.point!r} is an observer point; use emit (decision points: `hookd points`)",
                )
            point = req.point
        session, project, plan = self._target(point, req)
        if plan is None:
            return self._decide_later(req, project, deadline_of(req.timeout))
        # The hot path: an empty outcome. Its event carries no decision, no reason and no
        # hooks, which is what an event without an outcome holds.
        if plan.idle and not req.trace:
            self.counters.decides += 1
            self.bus.publish("decide", point, session, project, req.payload, None, None, 0 if conn is None else conn.body_size)
            return m.Outcome(req.id)
        ctx = CallContext(point, session, project, deadline=deadline_of(req.timeout))
        if not plan.decisions and not plan.shadows and not plan.shadow_skips and not req.trace:
            state = d.engine.decided_without_hooks(plan, req.payload, ctx)
            if d.approvals.wanted(state):  # a guard that did not run, with on_error: ask
                return self._approved_later(req.id, state, req.payload, ctx)
            self.observed.decided(ctx, req.payload, state, None)
            return state.outcome(req.id)
        if plan.inline and not req.trace:
            # Hooks that answer at once (the built-in guards): the chain folds now, with no task.
            started = time.perf_counter()
            folded = d.engine.decide_now(plan, req.payload, ctx)
            if folded is not None:
                took = round((time.perf_counter() - started) * 1000, 3)
                if d.approvals.wanted(folded):  # an ask, with approvers connected: a person decides
                    return self._approved_later(req.id, folded, req.payload, ctx, took)
                self.observed.decided(ctx, req.payload, folded, took, 0 if conn is None else conn.body_size)
                return folded.outcome(req.id)
        if not plan.shadows and not plan.shadow_skips and not req.trace:
            # One warm hook: its request is written now and its answer resolves the reply, no task.
            size = 0 if conn is None else conn.body_size
            warm = decide_warm(d.engine, plan, req.payload, ctx, partial(self._warm_decided, req.id, req.payload, ctx, size))
            if warm is not None:
                return warm
        # Leases are taken as the plan is snapshotted: the workers and hosts it names serve it to its end.
        return self._decide(req.id, plan, req.payload, ctx, d.engine.lease(plan), req.trace)

    def _warm_decided(
        self, rid: int, payload: dict[str, Any], ctx: CallContext, size: int, state: Any, took: float
    ) -> m.Reply | Coroutine[Any, Any, m.Reply]:
        """The reply of a decide that took the warm path, as :meth:`_decide` makes it. Its chain
        has ended and nothing changes its state after this: its event is staged."""
        if self.d.approvals.wanted(state):
            return self._approved_later(rid, state, payload, ctx, took)
        self.observed.decided(ctx, payload, state, took, size)
        return state.outcome(rid)

    async def _decide(
        self, rid: int, plan: Plan, payload: dict[str, Any], ctx: CallContext, leases: Leases | None, trace: bool = False
    ) -> m.Reply:
        engine = self.d.engine
        tracer = Tracer() if trace else None
        # Shadow hooks start with the chain, on the payload as the agent sent it, and never delay its reply.
        shadows = engine.shadows(plan, payload, ctx, trace) if plan.shadows or plan.shadow_skips else None
        started = time.perf_counter()
        state = await engine.decide(plan, payload, ctx, leases, tracer)
        took = round((time.perf_counter() - started) * 1000, 3)
        # A chain that ends in ask waits for a person when approvers are connected (hookd/daemon/approvals.py).
        approval = await self.d.approvals.settle(state, ctx) if self.d.approvals.wanted(state) else None
        if shadows is None:
            self.observed.decided(ctx, payload, state, took)
        elif tracer is not None:  # a traced call waits for its shadows: they are part of what it shows
            self.observed.shadowed(await shadows, state, tracer)
            self.observed.decided(ctx, payload, state, took)
        else:
            self.d.background(self.observed.after_shadows(shadows, ctx, payload, state, took), "a decide's shadow hooks")
        outcome = state.outcome(rid)
        outcome.approval = approval
        if tracer is not None:
            outcome.trace = tracer.entries
        return outcome

    async def _approved_later(self, rid: int, state: Any, payload: dict[str, Any], ctx: CallContext, took: float | None = None) -> m.Reply:
        approval = await self.d.approvals.settle(state, ctx)
        self.observed.decided(ctx, payload, state, took)
        outcome = state.outcome(rid)
        outcome.approval = approval
        return outcome

    async def _decide_later(self, req: m.Decide, project: str | None, deadline: float | None) -> m.Reply:
        """The first calls on a project wait (bounded) for its files and plugins, so they are not run
        without its guards while those load; what did not load in time is named as not run."""
        d = self.d
        missing = await d.files.settle(project)
        plan = d.registry.plan(req.point, req.session, project)
        if missing:
            plan = dataclasses.replace(plan, not_run=plan.not_run + missing)
        ctx = CallContext(req.point, req.session, project, deadline=deadline)
        return await self._decide(req.id, plan, req.payload, ctx, d.engine.lease(plan), req.trace)
