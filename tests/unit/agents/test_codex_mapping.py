"""The Codex bridge's mapping, golden: hook inputs as Codex 0.171 writes them, answers as Codex's hooks reference
and its output parser accept them (codex-rs/hooks: schema.rs, engine/output_parser.rs, events/*.rs)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.claude_code.hooks import hook_input
from hookd.agents.codex import protocol as mapping
from hookd.agents.dialect import AGENT_ENV, Verdict

SESSION = "01a230d9-68a5-72a3-b617-45f2e2d99c20"
TURN = "01a230d9-68b7-7222-8a47-a7fc06d3e5d3"
COMMON = {
    "session_id": SESSION,
    "transcript_path": "/home/u/.codex/sessions/2026/12/01/rollout.jsonl",
    "cwd": "/work/project",
    "model": "gpt-5.5",
    "permission_mode": "bypassPermissions",
}
# Captured from `codex exec` 0.171.0 with a command hook that saved its stdin.
PRE_TOOL_USE = {
    **COMMON,
    "turn_id": TURN,
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf /work/project/keep"},
    "tool_use_id": "call_0001",
}
POST_TOOL_USE = {**PRE_TOOL_USE, "hook_event_name": "PostToolUse", "tool_response": "done\n"}
SESSION_START = {**COMMON, "hook_event_name": "SessionStart", "source": "startup"}
USER_PROMPT = {**COMMON, "turn_id": TURN, "hook_event_name": "UserPromptSubmit", "prompt": "run it"}
STOP = {**COMMON, "turn_id": TURN, "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"}
SESSION_END = {k: v for k, v in COMMON.items() if k not in ("model", "permission_mode")} | {
    "hook_event_name": "SessionEnd",
    "reason": "other",
}


def test_pre_tool_use_becomes_a_decide_on_the_tool_approval_point() -> None:
    call = dialect.route(mapping.DIALECT, PRE_TOOL_USE, {"PATH": "/usr/bin"})
    assert (call.event, call.point, call.decide) == ("PreToolUse", "tool.approval.pre", True)
    assert call.session == SESSION and call.project == "/work/project"
    assert not call.attach and not call.dispose
    p = call.payload
    assert p["toolName"] == "execute_command" and p["args"] == {"command": "rm -rf /work/project/keep"}
    assert p["agentToolName"] == "Bash" and p["agent"] == "codex"
    assert p["turnId"] == TURN and p["toolUseId"] == "call_0001" and p["model"] == "gpt-5.5"
    assert p["hookInput"]["hook_event_name"] == "PreToolUse" and p["hookInput"]["permission_mode"] == "bypassPermissions"
    assert p[AGENT_ENV] == {"PATH": "/usr/bin"}


@pytest.mark.parametrize("data", [PRE_TOOL_USE, POST_TOOL_USE, SESSION_START, USER_PROMPT, STOP, SESSION_END])
def test_a_hook_written_for_codex_gets_back_exactly_codex_input(data: dict) -> None:
    call = dialect.route(mapping.DIALECT, data, {})
    assert hook_input(call.payload, call.point, call.session or "", call.project or "", "/") == data


@pytest.mark.parametrize(
    ("data", "point", "decide"),
    [
        (POST_TOOL_USE, "tool.execute.after", True),
        (USER_PROMPT, "chat.message", True),
        (STOP, "agent.turn.stop", True),
        (SESSION_START, "agent.turn.start", True),
        (SESSION_END, "chat.finished", False),
        ({**COMMON, "hook_event_name": "PostCompact", "trigger": "auto"}, "custom.codex.PostCompact", False),
        ({**COMMON, "hook_event_name": "SomethingNew"}, "custom.codex.SomethingNew", False),
    ],
)
def test_every_event_has_a_point(data: dict, point: str, decide: bool) -> None:
    call = dialect.route(mapping.DIALECT, data, {})
    assert (call.point, call.decide) == (point, decide)


def test_session_start_attaches_and_session_end_disposes() -> None:
    assert dialect.route(mapping.DIALECT, SESSION_START, {}).attach
    assert dialect.route(mapping.DIALECT, SESSION_END, {}).dispose


@pytest.mark.parametrize("bad", [[], "x", {"session_id": "s"}, {"hook_event_name": ""}])
def test_bad_input_is_refused(bad: object) -> None:
    with pytest.raises(dialect.BadInput):
        dialect.route(mapping.DIALECT, bad, {})


def test_deny_on_pre_tool_use_carries_a_non_empty_reason() -> None:
    out = dialect.render(mapping.DIALECT, "PreToolUse", Verdict("deny", "no recursive force delete", decided_by="no-rm-rf"))
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no recursive force delete",
        }
    }
    # Codex refuses a deny without a reason (the hook would count as failed and the tool would run).
    blank = dialect.render(mapping.DIALECT, "PreToolUse", Verdict("deny", "  ", decided_by="g"))
    assert blank["hookSpecificOutput"]["permissionDecisionReason"] == "denied by hookd hook 'g'"


def test_allow_is_said_only_with_a_rewrite() -> None:
    # Codex: "PreToolUse hook returned unsupported permissionDecision:allow" without updatedInput.
    assert dialect.render(mapping.DIALECT, "PreToolUse", Verdict("allow")) is None
    out = dialect.render(mapping.DIALECT, "PreToolUse", Verdict("allow", modified_input={"command": "echo rewritten"}))
    assert out == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo rewritten"}}
    }
    # A rewrite without an allow is refused by Codex too: an abstaining chain's rewrite is not sent.
    assert dialect.render(mapping.DIALECT, "PreToolUse", Verdict(None, modified_input={"command": "x"})) is None


def test_ask_on_pre_tool_use_is_a_deny_since_codex_cannot_ask_there() -> None:
    out = dialect.render(mapping.DIALECT, "PreToolUse", Verdict("ask", "a person must approve"))
    specific = out["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny" and specific["permissionDecisionReason"].startswith("a person must approve")


def test_pre_tool_use_never_carries_fields_codex_refuses_there() -> None:
    agent = {"continue": False, "stopReason": "stop", "suppressOutput": True, "systemMessage": "hi"}
    out = dialect.render(mapping.DIALECT, "PreToolUse", Verdict("deny", "no", agent_output=agent))
    assert set(out) == {"hookSpecificOutput", "systemMessage"}
    assert dialect.render(mapping.DIALECT, "Stop", Verdict(None, agent_output=agent)) == {
        "continue": False,
        "stopReason": "stop",
        "suppressOutput": True,
        "systemMessage": "hi",
    }


def test_a_deny_on_pre_compact_stops_instead_of_compacting() -> None:
    call = dialect.route(mapping.DIALECT, {**COMMON, "turn_id": TURN, "hook_event_name": "PreCompact", "trigger": "auto"}, {})
    assert (call.point, call.decide) == ("experimental.session.compacting", True)
    assert dialect.render(mapping.DIALECT, "PreCompact", Verdict("deny", "not now")) == {"continue": False, "stopReason": "not now"}
    assert dialect.render(mapping.DIALECT, "PreCompact", Verdict("allow")) is None


def test_permission_request() -> None:
    assert dialect.render(mapping.DIALECT, "PermissionRequest", Verdict("allow", modified_input={"command": "x"})) == {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}
    }
    assert dialect.render(mapping.DIALECT, "PermissionRequest", Verdict("deny", "no")) == {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}
    }
    assert dialect.render(mapping.DIALECT, "PermissionRequest", Verdict("ask")) is None


@pytest.mark.parametrize("event", ["PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"])
def test_top_level_block(event: str) -> None:
    assert dialect.render(mapping.DIALECT, event, Verdict("deny", "keep going")) == {"decision": "block", "reason": "keep going"}


def test_context_goes_only_where_codex_reads_it() -> None:
    for event in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SubagentStart"):
        assert dialect.render(mapping.DIALECT, event, Verdict(None, injection="note")) == {
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": "note"}
        }
    # Stop's answer has no hookSpecificOutput in Codex: sending one would make the whole answer invalid.
    assert dialect.render(mapping.DIALECT, "Stop", Verdict(None, injection="note")) is None


def test_post_tool_use_output_is_replaced_only_for_mcp_tools() -> None:
    out = dialect.render(mapping.DIALECT, "PostToolUse", Verdict(None, modified_output={"content": []}), "mcp__files__read")
    assert out == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedMCPToolOutput": {"content": []}}}
    out = dialect.render(mapping.DIALECT, "PostToolUse", Verdict(None, modified_output="x"), "Bash")
    assert set(out) == {"systemMessage"} and "MCP" in out["systemMessage"]


def test_guards_that_did_not_run_are_shown_to_the_user() -> None:
    v = Verdict(None, not_run=("hookd: guard 'g' did not run: untrusted",), errors=("h: timeout: too slow",))
    out = dialect.render(mapping.DIALECT, "PreToolUse", v)
    assert out == {"systemMessage": "hookd: hook h: timeout: too slow\nhookd: guard 'g' did not run: untrusted"}


def test_fail_closed_denies_only_tool_calls() -> None:
    assert dialect.fail_closed(mapping.DIALECT, "PreToolUse", "down")["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert dialect.fail_closed(mapping.DIALECT, "Stop", "down") is None and dialect.fail_closed(mapping.DIALECT, None, "down") is None


# What Codex accepts in each event's answer (codex-rs/hooks/src/schema.rs: unknown fields refused;
# engine/output_parser.rs: the values it refuses).
UNIVERSAL = {"continue", "stopReason", "suppressOutput", "systemMessage"}
TOP = {
    "PreToolUse": {"systemMessage", "hookSpecificOutput"},
    "PermissionRequest": {"systemMessage", "hookSpecificOutput"},
    "PostToolUse": UNIVERSAL - {"suppressOutput"} | {"decision", "reason", "hookSpecificOutput"},
    "UserPromptSubmit": UNIVERSAL | {"decision", "reason", "hookSpecificOutput"},
    "Stop": UNIVERSAL | {"decision", "reason"},
    "SubagentStop": UNIVERSAL | {"decision", "reason"},
    "SessionStart": UNIVERSAL | {"hookSpecificOutput"},
    "SubagentStart": UNIVERSAL | {"hookSpecificOutput"},
    "PreCompact": UNIVERSAL,
    "PostCompact": UNIVERSAL,
    "SessionEnd": UNIVERSAL,
    "Interrupt": UNIVERSAL,
}
SPECIFIC = {
    "PreToolUse": {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"},
    "PermissionRequest": {"hookEventName", "decision"},
    "PostToolUse": {"hookEventName", "additionalContext", "updatedMCPToolOutput"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
    "SubagentStart": {"hookEventName", "additionalContext"},
}
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(
    event=st.sampled_from(sorted(TOP)),
    decision=st.sampled_from([None, "allow", "deny", "ask", "defer", ""]),
    reason=st.none() | st.text(max_size=12),
    injection=st.none() | st.text(max_size=12),
    modified_input=st.none() | st.dictionaries(st.text(max_size=5), _json, max_size=3),
    modified_output=st.none() | _json,
    agent=st.none()
    | st.dictionaries(st.sampled_from(["continue", "stopReason", "suppressOutput", "systemMessage", "x"]), _json, max_size=4),
    tool=st.sampled_from(["Bash", "apply_patch", "mcp__fs__read", None]),
)
def test_every_answer_is_one_codex_accepts(event, decision, reason, injection, modified_input, modified_output, agent, tool) -> None:  # type: ignore[no-untyped-def]
    v = Verdict(decision, reason, injection, modified_input, modified_output, "g", (), (), agent)
    out = dialect.render(mapping.DIALECT, event, v, tool)
    if out is None:
        return
    assert set(out) <= TOP[event], out
    assert out.get("continue", False) is False and isinstance(out.get("stopReason", ""), str)
    assert out.get("suppressOutput", True) is True and isinstance(out.get("systemMessage", ""), str)
    if "decision" in out:
        assert out["decision"] == "block" and out["reason"].strip()
    specific = out.get("hookSpecificOutput")
    if specific is not None:
        assert specific["hookEventName"] == event and set(specific) <= SPECIFIC[event] and len(specific) > 1
        if event == "PreToolUse":
            said = specific.get("permissionDecision")
            assert said in (None, "allow", "deny")
            assert ("updatedInput" in specific) == (said == "allow")
            if said == "deny":
                assert specific["permissionDecisionReason"].strip()
            else:
                assert "permissionDecisionReason" not in specific
        if event == "PermissionRequest":
            assert specific["decision"]["behavior"] in ("allow", "deny") and set(specific["decision"]) <= {"behavior", "message"}
        if "updatedMCPToolOutput" in specific:
            assert (tool or "").startswith("mcp__")
    # A guard's deny is never lost where Codex can block.
    if decision == "deny" and event == "PreToolUse":
        assert specific["permissionDecision"] == "deny"
