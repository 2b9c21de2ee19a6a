"""Stats count each hook's answers by the rule they named (a built-in guard's `git.reset-hard`): in its
life and recent window, across slices, shadow or not, and bounded however many rules hooks make up."""

from __future__ import annotations

from hookd_client.messages import HookRef, HookRun
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.events.stats import MAX_RULES, OTHER_RULES, Stats

REF = HookRef("guards", "global", "/x/hooks.yaml")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_answers_are_counted_per_rule_and_runs_without_one_are_not() -> None:
    clock = Clock()
    stats = Stats(window=100.0, clock=clock)
    runs = [
        HookRun(REF, decision="deny", ms=0.1, rule="git.reset-hard"),
        HookRun(REF, decision="ask", ms=0.1, rule="git.stash-drop"),
        HookRun(REF, ms=0.1),
    ]
    for run in runs:
        stats.decide("tool.approval.pre", "s1", [run], 0.2, run.decision)
    clock.now = 50.0  # a later slice
    stats.decide("tool.approval.pre", "s1", [runs[0]], 0.2, "deny")
    [hook] = stats.reply(1, None).hooks
    assert hook.life.rules == {"git.reset-hard": 2, "git.stash-drop": 1}
    assert hook.life.denies == 2 and hook.life.asks == 1 and hook.life.calls == 4
    clock.now = 250.0  # the first slices have left the window; the life keeps them
    [hook] = stats.reply(2, None).hooks
    assert hook.recent.rules == {} and hook.life.rules == {"git.reset-hard": 2, "git.stash-drop": 1}


def test_a_shadow_hook_s_rules_are_what_it_would_have_answered() -> None:
    stats = Stats(window=100.0, clock=Clock())
    stats.decide("tool.approval.pre", None, [HookRun(REF, decision="deny", ms=0.1, shadow=True, rule="files.shred")], 0.1, None)
    [hook] = stats.reply(1, None).hooks
    assert hook.shadow and hook.life.rules == {"files.shred": 1} and hook.life.denies == 1


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=300))
def test_however_many_rules_hooks_name_the_count_is_bounded_and_nothing_is_lost(names: list[str]) -> None:
    clock = Clock()
    stats = Stats(window=100.0, clock=clock)
    for i, name in enumerate(names):
        clock.now = float(i % 7) * 20  # across slices, so merging is bounded too
        stats.decide("tool.approval.pre", None, [HookRun(REF, decision="deny", ms=0.1, rule=name)], 0.1, "deny")
    hooks = stats.reply(1, None).hooks
    rules = hooks[0].life.rules if hooks else {}
    assert sum(rules.values()) == len(names)
    assert len(rules) <= MAX_RULES + 1 and (len(rules) <= MAX_RULES or OTHER_RULES in rules)
