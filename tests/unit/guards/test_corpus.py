"""The packs on bench/guards' corpora: at least 99% of dangerous calls blocked and at most 1% of
benign look-alikes, in every category, so a change to a rule that costs either shows here."""

from __future__ import annotations

import pytest

from bench.guards.run import CATEGORIES, CORPUS, CORPUS_HOME, HOLDOUT, Call, load
from hookd.guards.check import check
from hookd.guards.model import PACKS, Context
from hookd.guards.policy import Policy


def blocked(call: Call) -> bool:
    return check(PACKS, call.tool, call.args, Context(call.cwd, CORPUS_HOME + "/proj", CORPUS_HOME), Policy()) is not None


@pytest.mark.parametrize("corpus", [CORPUS, HOLDOUT], ids=["corpus", "holdout"])
@pytest.mark.parametrize("category", CATEGORIES)
def test_each_category_blocks_the_dangerous_and_passes_the_benign(corpus: object, category: str) -> None:
    calls = [c for c in load(corpus=corpus) if c.category == category]  # type: ignore[arg-type]
    dangerous = [c for c in calls if c.dangerous]
    benign = [c for c in calls if not c.dangerous]
    assert len(dangerous) >= 25 and len(benign) >= 25
    missed = [c.source for c in dangerous if not blocked(c)]
    false = [c.source for c in benign if blocked(c)]
    assert len(missed) <= 0.01 * len(dangerous), f"dangerous calls not blocked: {missed}"
    assert len(false) <= 0.01 * len(benign), f"benign calls blocked: {false}"
