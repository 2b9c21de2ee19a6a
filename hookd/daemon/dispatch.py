"""The daemon's one dispatch: a decoded request to its feature's handler, and every error it
raises to an error reply. The connection's inline calls and the general path both go through it."""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from types import CoroutineType
from typing import Protocol

import structlog
from hookd_client import messages as m

from hookd.daemon.handlers.common import Handler, Peer, RequestError, Result

log = structlog.get_logger("hookd.daemon")


class Feature(Protocol):
    def handlers(self) -> dict[type[m.Request], Handler]: ...


class Dispatch:
    """Which handler serves each request type, and how many requests were served."""

    def __init__(self, features: Iterable[Feature]) -> None:
        self.table: dict[type[m.Request], Handler] = {}
        for feature in features:
            self.table.update(feature.handlers())
        self.calls = 0

    def handle(self, conn: Peer, request: m.Request) -> Result:
        self.calls += 1
        handler = self.table.get(type(request))
        if handler is None:
            return m.Error(getattr(request, "id", 0), m.ErrorCode.BAD_REQUEST, f"{type(request).__name__} is not valid here")
        try:
            result = handler(conn, request)
        except RequestError as exc:
            return m.Error(getattr(request, "id", 0), exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed", request=type(request).__name__)
            return m.Error(getattr(request, "id", 0), m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
        if type(result) is CoroutineType:  # work that waits: answered with an error reply if it raises
            return self.guard(getattr(request, "id", 0), result)
        return result  # a reply, or a future (a warm decide, hookd/engine/warm.py) whose failure the connection answers

    async def guard(self, rid: int, work: Awaitable[m.Reply]) -> m.Reply:
        """Work that waits, answered with an error reply if it raises."""
        try:
            return await work
        except RequestError as exc:
            return m.Error(rid, exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed")
            return m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
