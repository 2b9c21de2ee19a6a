"""The agent dialect: an agent's hook protocol is a table, and one route and one render serve every
table. A made-up agent given only a table is routed and answered; the four bridged agents that speak
JSON hooks are tables of the same kind."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as claude
from hookd.agents.codex import protocol as codex
from hookd.agents.gemini import protocol as gemini
from hookd.agents.qwen import protocol as qwen


def _fields(event: str, v: dialect.Verdict, agent: dict[str, Any], tool: str | None) -> dialect.Decided:
    top = {"verdict": "no"} if v.decision == "deny" else {}
    return dialect.Decided(dialect.specific(event, note=v.injection), top, [])


TOY = dialect.Dialect(
    agent="toy",
    routes={"BeforeShell": ("tool.approval.pre", True), "Bye": ("chat.finished", False)},
    unmapped_prefix="custom.toy.",
    common_fields=frozenset({"session_id", "cwd", "hook_event_name"}),
    decision_fields=_fields,
    project_env="TOY_PROJECT",
    session_start="Hello",
    session_end="Bye",
)


def test_a_new_agent_is_a_table() -> None:
    call = dialect.route(TOY, {"hook_event_name": "BeforeShell", "session_id": "s", "cwd": "/w", "tool_name": "sh"}, {"TOY_PROJECT": "/p"})
    assert (call.point, call.decide, call.session, call.project) == ("tool.approval.pre", True, "s", "/p")
    assert call.payload["agent"] == "toy" and call.payload["hookInput"] == {
        "hook_event_name": "BeforeShell",
        "session_id": "s",
        "cwd": "/w",
    }
    assert dialect.route(TOY, {"hook_event_name": "Bye", "session_id": "s"}, {}).dispose
    unknown = dialect.route(TOY, {"hook_event_name": "Odd"}, {})
    assert (unknown.point, unknown.decide) == ("custom.toy.Odd", False)
    assert dialect.render(TOY, "BeforeShell", dialect.Verdict("deny", injection="ctx")) == {
        "verdict": "no",
        "hookSpecificOutput": {"hookEventName": "BeforeShell", "note": "ctx"},
    }
    assert dialect.render(TOY, "BeforeShell", None) is None
    assert dialect.render(TOY._replace(always_answer=True), "BeforeShell", None) == {}


def test_every_bridged_json_agent_is_a_table() -> None:
    for module, agent, routes in (
        (claude, "claude-code", claude.ROUTES),
        (codex, "codex", codex.ROUTES),
        (gemini, "gemini", gemini.ROUTES),
        (qwen, "qwen", claude.ROUTES),  # Qwen Code's events are Claude Code's
    ):
        table = module.DIALECT
        assert isinstance(table, dialect.Dialect) and table.agent == agent
        assert table.routes is routes


def test_a_guard_that_did_not_run_is_named_to_the_user_by_every_agent() -> None:
    v = dialect.Verdict(not_run=("hookd: guard 'g' did not run: untrusted (review it)",), errors=("h: error: boom",))
    for module, event in ((claude, "PreToolUse"), (codex, "PreToolUse"), (gemini, "BeforeTool"), (qwen, "PreToolUse")):
        message = (dialect.render(module.DIALECT, event, v) or {}).get("systemMessage", "")
        assert "guard 'g' did not run" in message and "hookd: hook h: error: boom" in message, module.__name__


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()), st.dictionaries(st.text(), st.text())))
def test_anything_that_is_not_a_hook_input_is_refused_by_name(value: Any) -> None:
    for table in (claude.DIALECT, codex.DIALECT, gemini.DIALECT, TOY):
        if isinstance(value, dict) and isinstance(value.get("hook_event_name"), str) and value["hook_event_name"]:
            continue
        with pytest.raises(dialect.BadInput):
            dialect.route(table, value, {})
