"""The event stream: subscribe and unsubscribe (the bus does the work)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import msgspec
from hookd_client import messages as m

from hookd.daemon.handlers.common import Handler, Peer, RequestError, Result, project_arg
from hookd.events.bus import BusError

if TYPE_CHECKING:
    from hookd.events.bus import Bus


class StreamParts(Protocol):
    """What the event stream's requests use: the bus."""

    bus: Bus


class Stream:
    def __init__(self, daemon: StreamParts) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.Subscribe: self.subscribe, m.Unsubscribe: self.unsubscribe}

    def subscribe(self, conn: Peer, req: m.Subscribe) -> Result:
        if req.projects:  # events name a project by its identity: filter on the same spelling
            req = msgspec.structs.replace(req, projects=[p for p in (project_arg(p) for p in req.projects) if p is not None])
        try:
            return self.d.bus.subscribe(conn, req)
        except BusError as exc:
            raise RequestError(exc.code, exc.message) from None

    def unsubscribe(self, conn: Peer, req: m.Unsubscribe) -> Result:
        try:
            return self.d.bus.unsubscribe(conn, req)
        except BusError as exc:
            raise RequestError(exc.code, exc.message) from None
