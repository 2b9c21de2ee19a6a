"""Where the command line names the rule a built-in guard applied: a `hookd tail` line (by the
hook that decided, and what a shadow guard would have done), a trace's block, and `hookd stats`."""

from __future__ import annotations

from hookd_client.messages import Event, HookRef, HookRun

from hookd.cli import tailfmt
from hookd.cli.stats import counts_line
from hookd.cli.tracefmt import render

GUARDS = HookRef("guards", "global", "/home/me/.config/hookd/hooks.yaml")
OTHER = HookRef("other", "global", "/home/me/.config/hookd/hooks.yaml")


def text(ev: Event) -> str:
    return "".join(seg for seg, _ in tailfmt.summary_segments(ev))


def decide(hooks: list[HookRun], decision: str | None = None, by: HookRef | None = None) -> Event:
    return Event(1, 0.0, "decide", "tool.approval.pre", decision=decision, reason="r", decided_by=by, hooks=hooks)  # type: ignore[arg-type]


def test_the_rule_of_the_hook_that_decided_follows_its_name() -> None:
    ev = decide([HookRun(OTHER, ms=0.1), HookRun(GUARDS, decision="deny", ms=0.1, rule="git.reset-hard")], "deny", GUARDS)
    assert "by guards [git.reset-hard]" in text(ev)


def test_a_rule_of_another_hook_is_not_taken_for_the_decider_s() -> None:
    ev = decide([HookRun(GUARDS, decision="continue", ms=0.1, rule="git.x"), HookRun(OTHER, decision="deny", ms=0.1)], "deny", OTHER)
    assert "by other " in text(ev) + " " and "[git.x]" not in text(ev)


def test_what_a_shadow_guard_would_have_done_is_on_the_call_s_line() -> None:
    ev = decide([HookRun(GUARDS, decision="deny", ms=0.1, rule="files.shred", shadow=True)])
    assert "no decision" in text(ev) and "shadow would deny [files.shred] by guards" in text(ev)
    quiet = decide([HookRun(GUARDS, ms=0.1, shadow=True)])
    assert "shadow would" not in text(quiet)


def test_a_trace_shows_the_rule_and_its_pack_under_the_answer() -> None:
    out = render(
        "tool.approval.pre",
        {
            "decision": "deny",
            "reason": "git.reset-hard: gone",
            "decided_by": {"name": "guards", "scope": "global", "source": "/f"},
            "trace": [
                {
                    "hook": {"name": "guards", "scope": "global", "source": "/f"},
                    "answer": {"decision": "deny", "reason": "git.reset-hard: gone", "rule": "git.reset-hard"},
                }
            ],
        },
    )
    assert "   rule:   git.reset-hard (pack git)" in out.splitlines()


def test_stats_list_a_hook_s_rules_most_frequent_first() -> None:
    line = counts_line("life", {"calls": 4, "denies": 4, "rules": {"git.stash-drop": 1, "git.reset-hard": 3}})
    assert line.rstrip().endswith("rules: git.reset-hard 3, git.stash-drop 1")
