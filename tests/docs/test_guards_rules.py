"""docs/guards-rules.md is the packs' own list of rules: every rule, its summary and its safer command."""

from __future__ import annotations

from hookd.guards.catalogue import PACK_TABLE, rules
from hookd.guards.model import PACKS
from hookd.guards.reference import markdown

from .samples import ROOT

PAGE = ROOT / "docs" / "guards-rules.md"


def test_the_page_is_generated_from_the_packs() -> None:
    assert PAGE.read_text(encoding="utf-8") == markdown(), "regenerate it: python -m hookd.guards.reference > docs/guards-rules.md"


def test_every_rule_has_a_safer_command() -> None:
    for pack in PACKS:
        missing = [name for name, _ in rules(pack) if not PACK_TABLE[pack].safer.get(name)]
        assert missing == [], f"{pack}: rules with no safer command: {missing}"
