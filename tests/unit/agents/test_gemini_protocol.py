"""Golden tests of the Gemini CLI mapping, from Gemini CLI's hooks reference (docs/hooks/reference.md of
@google/gemini-cli 0.61, shipped in its package) and its hook runner and aggregator."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.dialect import Verdict
from hookd.agents.gemini import hooks, protocol
from hookd.core import points

# The reference's base input schema plus BeforeTool's fields, as Gemini CLI 0.61 writes them.
BEFORE_TOOL = {
    "session_id": "bb704cea-69a9-4cd0-8aa4-7682d8dffda2",
    "transcript_path": "/home/u/.gemini/tmp/proj/chats/session-2026-12-01T09-12-bb704cea.jsonl",
    "cwd": "/home/u/proj",
    "hook_event_name": "BeforeTool",
    "timestamp": "2026-12-01T09:12:04.745Z",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
}


def test_before_tool_asks_tool_approval_pre_for_a_decision() -> None:
    call = dialect.route(protocol.DIALECT, BEFORE_TOOL, {"GEMINI_PROJECT_DIR": "/home/u/proj"})
    assert (call.point, call.decide, call.session, call.project) == ("tool.approval.pre", True, BEFORE_TOOL["session_id"], "/home/u/proj")
    assert call.payload["toolName"] == "execute_command" and call.payload["agentToolName"] == "run_shell_command"
    assert call.payload["agent"] == "gemini"
    assert call.payload["args"] == {"command": "rm -rf build", "description": "clean"}
    kept = call.payload["hookInput"]
    assert kept["timestamp"] == BEFORE_TOOL["timestamp"] and kept["hook_event_name"] == "BeforeTool"
    assert call.payload["agentEnv"] == {"GEMINI_PROJECT_DIR": "/home/u/proj"}
    assert not call.attach and not call.dispose


def test_every_event_of_the_reference_has_a_point_of_the_right_kind() -> None:
    reference = ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "BeforeToolSelection", "AfterModel")
    reference += ("SessionStart", "SessionEnd", "Notification", "PreCompress")
    assert set(protocol.ROUTES) == set(reference)
    for event, (point, decide) in protocol.ROUTES.items():
        kind = points.lookup(point).kind
        assert kind in ("decision", "custom") or not decide, (event, point, kind)
    assert "AfterModel" not in protocol.INSTALLED_EVENTS  # a process per streamed chunk


def test_session_start_attaches_and_session_end_disposes() -> None:
    start = dialect.route(protocol.DIALECT, {**BEFORE_TOOL, "hook_event_name": "SessionStart", "source": "startup"}, {})
    assert start.attach and start.point == "agent.turn.start" and start.payload["source"] == "startup"
    end = dialect.route(protocol.DIALECT, {**BEFORE_TOOL, "hook_event_name": "SessionEnd", "reason": "exit"}, {})
    assert end.dispose and end.point == "chat.finished" and not end.decide


def test_an_unknown_event_goes_to_a_custom_point_as_an_emit() -> None:
    call = dialect.route(protocol.DIALECT, {"hook_event_name": "SomethingNew", "cwd": "relative"}, {})
    assert (call.point, call.decide, call.project, call.session) == ("custom.gemini.SomethingNew", False, None, None)


def test_bad_input_is_named() -> None:
    for bad in ([], "x", {"session_id": "s"}, {"hook_event_name": ""}):
        try:
            dialect.route(protocol.DIALECT, bad, {})
        except dialect.BadInput as exc:
            assert str(exc)
        else:
            raise AssertionError(bad)


def test_a_deny_blocks_with_its_reason_where_gemini_cli_blocks() -> None:
    v = Verdict("deny", "no recursive force delete", decided_by="no-rm-rf")
    # "decision: Set to "deny" (or "block") to prevent the tool from executing. reason: ... sent to the agent"
    assert dialect.render(protocol.DIALECT, "BeforeTool", v) == {"decision": "deny", "reason": "no recursive force delete"}
    for event in ("AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel"):
        assert dialect.render(protocol.DIALECT, event, v)["decision"] == "deny"
    assert dialect.render(protocol.DIALECT, "BeforeTool", Verdict("deny", decided_by="g")) == {
        "decision": "deny",
        "reason": "denied by hookd hook 'g'",
    }


def test_a_deny_gemini_cli_ignores_is_told_to_the_user() -> None:
    # SessionStart: "Advisory only: continue and decision fields are ignored."
    out = dialect.render(protocol.DIALECT, "SessionStart", Verdict("deny", "not today"))
    assert "decision" not in out and "not today" in out["systemMessage"] and "cannot block SessionStart" in out["systemMessage"]


def test_an_allow_that_rewrites_merges_tool_input() -> None:
    v = Verdict("allow", modified_input={"command": "echo rewritten"})
    # "hookSpecificOutput.tool_input: An object that merges with and overrides the model's arguments"
    assert dialect.render(protocol.DIALECT, "BeforeTool", v) == {
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "echo rewritten"}}
    }


def test_ask_context_and_agent_fields() -> None:
    assert dialect.render(protocol.DIALECT, "BeforeTool", Verdict("ask", "sure?")) == {"decision": "ask", "reason": "sure?"}
    assert (
        dialect.render(protocol.DIALECT, "AfterTool", Verdict(injection="audited"))["hookSpecificOutput"]["additionalContext"] == "audited"
    )
    assert "hookSpecificOutput" not in dialect.render(protocol.DIALECT, "BeforeTool", Verdict(injection="x"))
    agent = {"continue": False, "stopReason": "halt", "systemMessage": "hi", "specific": {"clearContext": True}}
    out = dialect.render(protocol.DIALECT, "AfterAgent", Verdict(agent_output=agent))
    assert out == {
        "continue": False,
        "stopReason": "halt",
        "systemMessage": "hi",
        "hookSpecificOutput": {"hookEventName": "AfterAgent", "clearContext": True},
    }
    assert "continue" not in dialect.render(protocol.DIALECT, "AfterAgent", Verdict(agent_output={"continue": True, "stopReason": "x"}))


def test_guards_that_did_not_run_and_failed_hooks_are_named() -> None:
    v = Verdict(errors=("g: timeout: 5 s",), not_run=("hookd: guard 'x' did not run: untrusted",))
    assert (
        dialect.render(protocol.DIALECT, "BeforeTool", v)["systemMessage"]
        == "hookd: hook g: timeout: 5 s\nhookd: guard 'x' did not run: untrusted"
    )


def test_nothing_to_say_is_still_an_object() -> None:
    # Gemini CLI parses stderr as the answer when stdout is empty.
    assert dialect.render(protocol.DIALECT, "BeforeTool", None) == {} and dialect.render(protocol.DIALECT, "Notification", Verdict()) == {}


def test_fail_closed_denies_only_tool_calls() -> None:
    assert dialect.fail_closed(protocol.DIALECT, "BeforeTool", "down") == {"decision": "deny", "reason": "down"}
    assert dialect.fail_closed(protocol.DIALECT, "AfterTool", "down") is None


# The hook's side: what an imported Gemini CLI hook's answer means.


def test_exit_2_blocks_with_stderr_as_reason() -> None:
    # "2: System Block. The action is blocked; stderr is used as the rejection reason."
    assert hooks.answer("BeforeTool", 2, "", "no deletes\n") == {"decision": "deny", "reason": "no deletes"}


def test_plain_text_on_exit_0_and_1_is_a_message_not_a_decision() -> None:
    assert hooks.answer("BeforeTool", 0, "looked fine", "") == {"agentOutput": {"systemMessage": "looked fine"}}
    assert hooks.answer("BeforeTool", 1, "", "odd") == {"agentOutput": {"systemMessage": "Warning: odd"}}
    assert hooks.answer("BeforeTool", 0, "", "") is None


def test_json_answers() -> None:
    deny = json.dumps({"decision": "block", "reason": "policy"})
    assert hooks.answer("BeforeTool", 0, deny, "") == {"decision": "deny", "reason": "policy"}
    assert hooks.answer("BeforeTool", 0, json.dumps(deny), "") == {"decision": "deny", "reason": "policy"}  # a JSON string of JSON
    assert hooks.answer("BeforeTool", 0, json.dumps({"decision": "allow"}), "") is None  # allow: nobody objects
    assert hooks.answer("SessionStart", 0, deny, "") is None  # ignored there
    rewrite = json.dumps({"hookSpecificOutput": {"tool_input": {"command": "ls"}}})
    assert hooks.answer("BeforeTool", 0, rewrite, "", {"command": "rm", "dir_path": "/x"}) == {
        "modifiedInput": {"command": "ls", "dir_path": "/x"}
    }
    ctx = json.dumps({"hookSpecificOutput": {"additionalContext": "c", "tailToolCallRequest": {"name": "t", "args": {}}}})
    assert hooks.answer("AfterTool", 0, ctx, "") == {
        "injection": "c",
        "agentOutput": {"specific": {"tailToolCallRequest": {"name": "t", "args": {}}}},
    }


def test_the_input_an_imported_hook_gets_from_another_agents_call() -> None:
    payload = {
        "toolName": "Bash",
        "args": {"command": "ls"},
        "hookInput": {"session_id": "s", "hook_event_name": "PreToolUse", "cwd": "/p"},
    }
    data = hooks.hook_input(payload, "tool.approval.pre", "BeforeTool", "s", "/p", "/")
    assert data["hook_event_name"] == "BeforeTool" and data["tool_name"] == "Bash" and data["tool_input"] == {"command": "ls"}
    env = hooks.environment({"PATH": "/bin"}, {"agentEnv": {"PATH": "/agent/bin"}}, data)
    assert env["PATH"] == "/agent/bin" and env["GEMINI_PROJECT_DIR"] == "/p" and env["GEMINI_SESSION_ID"] == "s"


_names = st.from_regex(r"[a-z]{1,8}(_[a-z]{1,8}){0,2}", fullmatch=True).filter(lambda n: n not in ("hook_event_name",))
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
    max_leaves=8,
)


@given(st.sampled_from(sorted(protocol.ROUTES)), st.dictionaries(_names, _json, max_size=6))
def test_the_payload_gives_back_the_agents_input_exactly(event: str, fields: dict[str, Any]) -> None:
    original = {**fields, "hook_event_name": event}
    call = dialect.route(protocol.DIALECT, original, {"PATH": "/bin"})
    back = hooks.hook_input(call.payload, call.point, event, "", "", "/")
    for key in ("session_id", "cwd", "transcript_path"):  # filled in when the agent sent none
        if key not in original:
            back.pop(key, None)
    assert back == original


_any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=8), c, max_size=4),
    max_leaves=12,
)
_verdicts = st.builds(
    Verdict,
    st.sampled_from([None, "allow", "deny", "ask", "defer"]),
    st.none() | st.text(max_size=10),
    st.none() | st.text(max_size=10),
    st.none() | st.dictionaries(st.text(max_size=5), _any_json, max_size=3),
    _any_json,
    st.none() | st.text(max_size=5),
    st.lists(st.text(max_size=10), max_size=2).map(tuple),
    st.lists(st.text(max_size=10), max_size=2).map(tuple),
    st.none() | st.dictionaries(st.sampled_from(["continue", "stopReason", "systemMessage", "specific", "x"]), _any_json, max_size=4),
)


@given(_any_json, st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3))
def test_any_input_is_routed_or_refused_by_name(data: Any, environ: dict[str, str]) -> None:
    try:
        call = dialect.route(protocol.DIALECT, data, environ)
    except dialect.BadInput as exc:
        assert str(exc)
        return
    assert call.point.startswith(("custom.gemini.", *(p for p, _ in protocol.ROUTES.values())))
    assert call.project is None or call.project.startswith("/")


@given(st.sampled_from([*protocol.ROUTES, "Other"]), _verdicts)
def test_any_verdict_renders_to_an_object_gemini_cli_reads(event: str, v: Verdict) -> None:
    out = dialect.render(protocol.DIALECT, event, v)
    assert isinstance(out, dict)
    json.dumps(out)  # what the bridge prints
    if v.decision == "deny" and event in protocol.BLOCKING:
        assert out["decision"] == "deny" and out["reason"]
    assert out.get("decision") != "allow"  # Gemini CLI's default; never sent, never ends other hooks


@given(st.sampled_from([*protocol.ROUTES]), st.integers(-3, 300), st.text(max_size=30), st.text(max_size=30))
def test_any_hook_result_reads_as_a_decision_or_nothing(event: str, code: int, stdout: str, stderr: str) -> None:
    out = hooks.answer(event, code, stdout, stderr, {"command": "ls"})
    assert out is None or (isinstance(out, dict) and out.get("decision") in (None, "deny", "ask"))
    json.dumps(out)
