"""Administration: the status request and the welcome a connection gets."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Protocol

from hookd_client import messages as m

from hookd import __version__
from hookd.daemon.handlers.common import Handler, Peer, Result

if TYPE_CHECKING:
    from hookd.core.registry import Registry
    from hookd.core.settings import Settings
    from hookd.daemon.dispatch import Dispatch
    from hookd.engine.engine import Engine
    from hookd.events.bus import Bus
    from hookd.plugins.manager import PluginManager
    from hookd.runners.persistent import PersistentRunner
    from hookd.team import Team


class AdminParts(Protocol):
    """What status and the welcome report: every part's counts."""

    settings: Settings
    bus: Bus
    engine: Engine
    registry: Registry
    persistent: PersistentRunner
    plugins: PluginManager
    team: Team
    started: float  # time.monotonic() at start
    connections: int
    dispatch: Dispatch  # its count of requests served


class Admin:
    def __init__(self, daemon: AdminParts) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.StatusRequest: self.status}

    def status(self, conn: Peer, req: m.StatusRequest) -> Result:
        d = self.d
        c = d.engine.counters
        return m.Status(
            req.id,
            __version__,
            os.getpid(),
            d.settings.socket,
            round(time.monotonic() - d.started, 3),
            d.connections,
            len(d.registry.sessions),
            d.registry.hook_count(),
            d.dispatch.calls,
            c.emits,
            c.decides,
            c.hook_errors,
            d.persistent.pool.info(),
            len(d.bus.subscribers),
            d.bus.seq,
            m.JournalInfo(**d.bus.journal_status()),
            d.plugins.info(),
            team=d.team.info(),
        )

    def welcome(self, rid: int) -> m.Welcome:
        s = self.d.settings
        return m.Welcome(
            rid,
            m.PROTOCOL_VERSION,
            "hookd",
            __version__,
            os.getpid(),
            m.Limits(s.max_frame, s.hook_timeout, s.max_inflight),
        )
