"""Factory Droid's dialect as pure functions: Claude Code's format under Droid's name, tools and project."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc
from hookd.agents.droid import protocol as droid

PRE = {
    "session_id": "s1",
    "transcript_path": "/h/.factory/sessions/x.jsonl",
    "cwd": "/work/p/sub",
    "permission_mode": "auto-low",
    "hook_event_name": "PreToolUse",
    "tool_name": "Execute",
    "tool_input": {"summary": "Clean up", "command": "rm -rf build"},
}


def test_a_droid_tool_call_names_droid_its_tool_and_its_project() -> None:
    call = dialect.route(droid.DIALECT, PRE, {"FACTORY_PROJECT_DIR": "/work/p"})
    assert (call.point, call.decide, call.session, call.project) == ("tool.approval.pre", True, "s1", "/work/p")
    p = call.payload
    assert (p["agent"], p["toolName"], p["agentToolName"], p["args"]["command"]) == ("droid", "execute_command", "Execute", "rm -rf build")
    assert p["hookInput"]["permission_mode"] == "auto-low" and p["agentEnv"] == {"FACTORY_PROJECT_DIR": "/work/p"}
    # Without the project variable, the input's cwd.
    assert dialect.route(droid.DIALECT, PRE, {}).project == "/work/p/sub"


def test_file_tools_are_hookds_and_a_rewrite_comes_back_in_droids_names() -> None:
    create = {**PRE, "tool_name": "Create", "tool_input": {"file_path": "/p/a.txt", "content": "x"}}
    call = dialect.route(droid.DIALECT, create, {})
    assert call.payload["toolName"] == "write_file" and call.payload["args"]["path"] == "/p/a.txt"
    verdict = dialect.for_agent(call, dialect.Verdict("allow", modified_input={"path": "/p/b.txt", "content": "x"}))
    out = dialect.render(droid.DIALECT, "PreToolUse", verdict)
    assert out is not None and out["hookSpecificOutput"]["updatedInput"] == {"file_path": "/p/b.txt", "content": "x"}
    assert (
        dialect.route(droid.DIALECT, {**PRE, "tool_name": "LS", "tool_input": {"directory_path": "/p"}}, {}).payload["args"]["path"] == "/p"
    )


def test_answers_are_claude_codes_and_events_droid_lacks_are_custom() -> None:
    deny = dialect.Verdict("deny", "no")
    assert dialect.render(droid.DIALECT, "PreToolUse", deny) == dialect.render(cc.DIALECT, "PreToolUse", deny)
    assert dialect.fail_closed(droid.DIALECT, "PreToolUse", "down") == dialect.fail_closed(cc.DIALECT, "PreToolUse", "down")
    assert dialect.fail_closed(droid.DIALECT, "Stop", "down") is None
    assert dialect.route(droid.DIALECT, {**PRE, "hook_event_name": "Notification"}, {}).point == "custom.droid.Notification"
    assert dialect.route(droid.DIALECT, {**PRE, "hook_event_name": "TeammateIdle"}, {}).point == "custom.droid.TeammateIdle"
    assert set(droid.INSTALLED_EVENTS) == set(droid.ROUTES)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)))
def test_any_input_routes_or_is_refused_as_bad_input(value: Any) -> None:
    try:
        call = dialect.route(droid.DIALECT, value, {})
    except dialect.BadInput:
        return
    assert call.payload["agent"] == "droid"
