"""The catalog: every point and internal event the daemon knows."""

from __future__ import annotations

from typing import Literal

import msgspec

from .base import Reply, Request, RequestId


class CatalogRequest(Request, tag="catalog"):
    """Every hook point (observer and decision) and every internal event, with payload types."""

    id: RequestId


class CatalogEntry(msgspec.Struct, omit_defaults=True):
    """One point. ``payload`` maps a field to its type (``str``, ``int``, ``list[str]``, ``str|null``...;
    a name ending in ``?`` is sometimes absent); empty for hook points, whose payload is the agent's map."""

    name: str
    kind: Literal["observer", "decision", "internal"]
    meaning: str = ""
    seeds: list[str] = []
    payload: dict[str, str] = {}


class Catalog(Reply, tag="catalog"):
    """Answer to ``catalog``: hook points, then internal events (``hookd.*``), each in catalog order."""

    id: int
    points: list[CatalogEntry] = []
    internal: list[CatalogEntry] = []
    custom_prefix: str = "custom."  # names under it are free and accept both kinds
    catch_all: str = "event"  # observers here see every event
