"""The catalog request: every hook point and internal event, with payload types.

A client written in any language learns from one request which points exist, which
take decisions, and what each internal event's payload holds (hookd/core/points.py).
The reply never changes while a daemon runs, so it is built once.
"""

from __future__ import annotations

from functools import cache

from hookd_client import messages as m

from hookd.core import points
from hookd.daemon.handlers.common import Handler, Peer, Result


@cache
def _entries() -> tuple[list[m.CatalogEntry], list[m.CatalogEntry]]:
    hook_points = [m.CatalogEntry(p.name, p.kind, p.meaning, list(p.seeds)) for p in points.POINTS.values()]
    internal = [m.CatalogEntry(p.name, "internal", p.meaning, [], dict(p.payload)) for p in points.INTERNAL.values()]
    return hook_points, internal


class CatalogFeature:
    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.CatalogRequest: self.catalog}

    def catalog(self, conn: Peer, req: m.CatalogRequest) -> Result:
        hook_points, internal = _entries()
        return m.Catalog(req.id, hook_points, internal, points.CUSTOM_PREFIX, points.CATCH_ALL)
