"""The replay request: journaled decide calls run again against the hooks in force now.

The calls are read from the journal (after the writer has caught up with what the bus
published before the request, bounded), oldest first, and each is run through today's plan
for its point, session and project without observers (hookd/daemon/replay.py). The reply holds
then and now side by side for every call; the bus hears one ``hookd.replay.done`` with the
counts, never the replayed calls themselves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import TYPE_CHECKING, Protocol

import structlog
from hookd_client import messages as m

from hookd.daemon.handlers.common import Handler, Peer, Publishes, RequestError, Result
from hookd.daemon.replay import Selection, decides, run_one, without_observers
from hookd.events import journal as journal_files

if TYPE_CHECKING:
    from hookd.core.registry import Registry
    from hookd.daemon.handlers.files import HookFiles
    from hookd.events.bus import Bus
    from hookd.events.journal import Journal
    from hookd.plugins.manager import PluginManager
    from hookd.runners.persistent import PersistentRunner

log = structlog.get_logger("hookd.replay")

FLUSH_WAIT = 5.0  # seconds a replay waits for the journal writer to store what was published before it


class ReplayParts(Publishes, Protocol):
    """What replaying journaled decides uses: the journal behind the bus, today's plan, warm workers."""

    bus: Bus
    registry: Registry
    files: HookFiles
    persistent: PersistentRunner
    plugins: PluginManager


class ReplayFeature:
    def __init__(self, daemon: ReplayParts) -> None:
        self.d = daemon
        self.running = 0  # replays in progress: the replay workers stop when the last one ends

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.Replay: self.replay}

    def replay(self, conn: Peer, req: m.Replay) -> Result:
        journal = self.d.bus.journal
        if journal is None:
            raise RequestError(m.ErrorCode.BAD_REQUEST, "the journal is off (journal = false in the daemon's settings): nothing to replay")
        if req.first is not None and req.last is not None and req.first > req.last:
            raise RequestError(m.ErrorCode.BAD_REQUEST, f"first seq {req.first} is after last seq {req.last}")
        return self._replay(req, journal)

    async def _replay(self, req: m.Replay, journal: Journal) -> m.Reply:
        self.d.bus.flush()
        await _flushed(journal, self.d.bus.seq)
        sel = Selection.of(req)
        events = await asyncio.to_thread(_read, journal.path, sel, req.limit + 1)
        more = len(events) > req.limit
        reply = m.Replayed(req.id, more=more)
        self.running += 1
        try:
            for ev in events[: req.limit]:
                call = await self._one(ev)
                if call is None:
                    reply.unreadable += 1
                    continue
                reply.calls.append(call)
                reply.differ += call.differs
        finally:
            self.running -= 1
            if not self.running:
                await self.d.persistent.end_replay()
        self.d.publish_internal(
            "hookd.replay.done",
            {
                "calls": len(reply.calls),
                "differ": reply.differ,
                "unreadable": reply.unreadable,
                "first": reply.calls[0].seq if reply.calls else None,
                "last": reply.calls[-1].seq if reply.calls else None,
            },
        )
        return reply

    async def _one(self, ev: m.Event) -> m.ReplayedCall | None:
        """One call run again; None when it cannot be (its payload was not journaled whole)."""
        if ev.kind != "decide":
            return None
        d = self.d
        project = ev.project
        plugins = d.plugins
        if (project is not None and not d.registry.is_loaded(project)) or (plugins.first_loads and plugins.first_loads_for(project)):
            missing = await d.files.settle(project)
        else:
            missing = ()
        plan = without_observers(d.registry.plan(ev.point, ev.session, project))
        if missing:
            plan = dataclasses.replace(plan, not_run=plan.not_run + missing)
        return await run_one(plan, ev)


def _read(path: str, sel: Selection, limit: int) -> list[m.Event]:
    out: list[m.Event] = []
    for ev in decides(journal_files.read(path, sel.since), sel):
        out.append(ev)
        if len(out) >= limit:
            break
    return out


async def _flushed(journal: Journal, seq: int) -> None:
    """Wait (bounded) until the journal holds every event up to ``seq``; a failing journal is not waited for."""
    deadline = time.monotonic() + FLUSH_WAIT
    while journal.last_written < seq and not journal.failing and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
