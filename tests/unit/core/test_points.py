from __future__ import annotations

import pytest

from hookd.core import points

SEED_000 = [
    "tool.execute.before",
    "tool.execute.after",
    "tool.execute.error",
    "tool.execute.denied",
    "tool.approval.pre",
    "tool.approval.post",
    "llm.request.before",
    "llm.response.after",
    "llm.response.error",
    "session.save.before",
    "session.save.after",
    "agent.turn.start",
    "agent.step.before",
    "agent.turn.stop",
    "agent.turn.end",
    "agent.subagent.spawn.before",
    "agent.subagent.spawn.after",
    "agent.subagent.complete",
]
SEED_004 = [
    "chat.message",
    "chat.params",
    "chat.headers",
    "chat.response",
    "chat.error",
    "chat.compression",
    "chat.finished",
    "user.approval",
    "turn.end",
    "command.execute.before",
    "tool.execute.before",
    "tool.execute.after",
    "tool.definition",
    "shell.env",
    "permission.ask",
    "experimental.chat.messages.transform",
    "experimental.chat.system.transform",
    "experimental.session.compacting",
    "experimental.text.complete",
    "config",
    "event",
]
BLOCKABLE_004 = [
    "chat.message",
    "chat.params",
    "chat.headers",
    "user.approval",
    "command.execute.before",
    "tool.execute.before",
    "tool.execute.after",
    "tool.definition",
    "shell.env",
    "permission.ask",
    "experimental.chat.messages.transform",
    "experimental.chat.system.transform",
    "experimental.session.compacting",
    "experimental.text.complete",
]


def test_catalog_has_every_point_of_both_seeds():
    assert len(SEED_000) == 18 and len(SEED_004) == 21
    assert {n for n, p in points.POINTS.items() if p.seeds} == set(SEED_000) | set(SEED_004)
    assert {n for n, p in points.POINTS.items() if not p.seeds} == set()
    for name in SEED_000:
        assert "000" in points.POINTS[name].seeds
    for name in SEED_004:
        assert "004" in points.POINTS[name].seeds


def test_decision_points_are_seed_000s_plus_seed_004s_blockable_events():
    # agent.turn.start/stop: the agent bridge injects context at session start and blocks a stop;
    # agent.subagent.complete: it blocks a subagent's stop (Claude Code's SubagentStop)
    promoted = {"agent.turn.start", "agent.turn.stop", "agent.subagent.complete"}
    expected = {"tool.approval.pre", "agent.subagent.spawn.before", *promoted, *BLOCKABLE_004}
    assert set(points.decision_points()) == expected


def test_unknown_point_names_the_nearest():
    with pytest.raises(points.UnknownPoint) as info:
        points.lookup("tool.exec.after")
    assert "tool.execute.after" in str(info.value)


def test_custom_points_accept_both_kinds():
    assert points.check_hook("custom.mine", "decision").kind == "decision"
    with pytest.raises(points.UnknownPoint):
        points.lookup("custom.")


def test_decision_hook_on_observer_point_is_refused():
    with pytest.raises(points.WrongKind):
        points.check_hook("llm.request.before", "decision")
    points.check_hook("llm.request.before", "observer")


def test_a_daemon_event_named_as_a_point_is_told_apart_from_a_typo() -> None:
    with pytest.raises(points.UnknownPoint) as info:
        points.lookup("hookd.daemon.started")
    assert "is the daemon's own event" in str(info.value) and "hookd tail --point hookd.daemon.started" in str(info.value)
    assert "did you mean" not in str(info.value) and info.value.suggestions == []
    with pytest.raises(points.UnknownPoint) as typo:
        points.lookup("tool.aproval.pre")
    assert "did you mean tool.approval.pre" in str(typo.value)
