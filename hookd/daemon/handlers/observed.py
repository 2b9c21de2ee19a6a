"""What a decide leaves behind once it is answered: its event on the bus (with each hook's
result), its counts in stats, and the results of its shadow hooks.

A decide without shadow hooks is published and counted as soon as its chain ends. One with
shadow hooks is answered as soon as its chain ends too, but its event is published (and
counted) once its shadow hooks have answered as well (each is bounded by its timeout): the
event then holds every hook's result, shadows included, and the agent never waits for a
hook whose answer cannot change its outcome. A traced decide waits for its shadows before
it replies, since they are part of what its trace shows.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from hookd_client import messages as m

from hookd.core.chain import ChainState
from hookd.core.trace import Tracer
from hookd.daemon.handlers.common import Peer
from hookd.events.stats import Stats

if TYPE_CHECKING:
    import asyncio

    from hookd.core.registry import CallContext
    from hookd.core.settings import Settings
    from hookd.engine.engine import Engine, Ran
    from hookd.events.bus import Bus

log = structlog.get_logger("hookd.calls")


class ObservedParts(Protocol):
    """What recording an answered decide uses: the bus it is staged on, the engine's stats, the settings."""

    bus: Bus
    engine: Engine
    settings: Settings


class Observed:
    def __init__(self, daemon: ObservedParts) -> None:
        self.d = daemon
        settings = daemon.settings
        window = getattr(settings, "stats_window", 300.0)
        self.window = window
        self.since = time.time()
        self.stats: Stats | None = Stats(window) if getattr(settings, "stats", True) else None
        daemon.engine.stats = self.stats

    def decided(self, ctx: CallContext, payload: dict[str, Any], state: ChainState, took: float | None, size: int = 0) -> None:
        """A decide's event on the bus, and its counts. ``size``: its request's frame bytes, for a
        call from a socket connection whose chain has ended for good; its event is then staged
        (see Bus.publish), and otherwise encoded at once."""
        self.d.bus.publish("decide", ctx.point, ctx.session, ctx.project, payload, state, took, size)
        stats = self.stats
        if stats is not None:
            agent = payload.get("agent")
            stats.decide(ctx.point, ctx.session, state.runs, took or 0.0, state.decision, agent if isinstance(agent, str) else None)

    @staticmethod
    def shadowed(results: list[Ran], state: ChainState, tracer: Tracer | None) -> None:
        """Shadow hooks' results added to the call's, after its own hooks'."""
        for _, run, entry in results:
            state.runs.append(run)
            if tracer is not None:
                tracer.add(entry)

    async def after_shadows(
        self, shadows: asyncio.Task[list[Ran]], ctx: CallContext, payload: dict[str, Any], state: ChainState, took: float
    ) -> None:
        try:
            results = await shadows
        except Exception:  # a bug in running them must not cost the call its event
            log.exception("shadow hooks failed to run", point=ctx.point)
            results = []
        self.shadowed(results, state, None)
        self.decided(ctx, payload, state, took)

    def stats_request(self, conn: Peer, req: m.StatsRequest) -> m.Stats:
        if self.stats is None:
            return m.Stats(req.id, self.since, self.window, enabled=False)
        return self.stats.reply(req.id, req.window)
