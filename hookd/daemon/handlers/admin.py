"""Administration: the status request and the welcome a connection gets."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from hookd_client import messages as m

from hookd import __version__
from hookd.daemon.handlers.common import Handler, Result

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon


class Admin:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.StatusRequest: self.status}

    def status(self, conn: Any, req: m.StatusRequest) -> Result:
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
            d.calls,
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
