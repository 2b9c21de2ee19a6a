"""The five packs and every rule's name and summary, in pack order."""

from __future__ import annotations

from hookd.guards import files, git, infra, publish, secrets
from hookd.guards.pack import Pack

PACK_TABLE: dict[str, Pack] = {p.name: p for p in (files.PACK, git.PACK, infra.PACK, secrets.PACK, publish.PACK)}
RULES: dict[str, str] = {name: summary for pack in PACK_TABLE.values() for name, summary in pack.rules.items()}


def too_deep(pack: str) -> str:
    """The rule every pack has: a command nested too deep, or too long, to be read through."""
    return f"{pack}.too-deep"


def rules(pack: str) -> list[tuple[str, str]]:
    """(rule name, one-line summary) of a pack's rules; KeyError for a pack that does not exist."""
    return list(PACK_TABLE[pack].rules.items())
