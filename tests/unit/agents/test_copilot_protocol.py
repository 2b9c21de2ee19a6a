"""Copilot CLI's hook protocol: its inputs (as the real CLI 1.0.102 sent them) routed onto hookd's points and
vocabulary, hookd's verdicts answered in the fields Copilot reads, and a hook written for Copilot given back
exactly the input Copilot gave."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.copilot import hooks, protocol

SESSION = "12697ae1-0a27-4414-94d3-29792a4e3c5e"
PRE = {
    "sessionId": SESSION,
    "timestamp": 1796441358641,
    "cwd": "/tmp/proj",
    "toolName": "bash",
    "toolArgs": {"command": "rm -rf /tmp/victim", "description": "run it"},
}


def routed(event: str, data: dict[str, Any]) -> dialect.Call:
    return dialect.route(protocol.DIALECT, {**data, "hook_event_name": event}, {})


def test_a_pre_tool_use_reaches_the_guards_as_execute_command_in_its_session_and_project() -> None:
    call = routed("preToolUse", PRE)
    assert (call.point, call.decide, call.session, call.project) == ("tool.approval.pre", True, SESSION, "/tmp/proj")
    p = call.payload
    assert (p["toolName"], p["agentToolName"], p["agent"]) == ("execute_command", "bash", "copilot")
    assert p["args"] == PRE["toolArgs"]
    assert p["hookInput"] == {"session_id": SESSION, "timestamp": PRE["timestamp"], "cwd": "/tmp/proj", "hook_event_name": "preToolUse"}


def test_the_events_copilot_sent_are_routed_and_the_session_is_attached_and_disposed() -> None:
    start = routed("sessionStart", {"sessionId": SESSION, "timestamp": 1, "cwd": "/p", "source": "new", "initialPrompt": "hi"})
    assert start.point == "agent.turn.start" and start.attach and start.payload["initialPrompt"] == "hi"
    prompt = routed("userPromptSubmitted", {"sessionId": SESSION, "timestamp": 1, "cwd": "/p", "prompt": "hi"})
    assert (prompt.point, prompt.decide, prompt.payload["prompt"]) == ("chat.message", True, "hi")
    asked = routed(
        "permissionRequest", {"sessionId": SESSION, "timestamp": 1, "cwd": "/p", "toolName": "bash", "toolInput": {"command": "ls"}}
    )
    assert asked.point == "permission.ask" and asked.payload["args"] == {"command": "ls"}
    post = routed("postToolUse", {**PRE, "toolResult": {"resultType": "success", "textResultForLlm": "ok"}})
    assert post.point == "tool.execute.after" and post.payload["output"]["textResultForLlm"] == "ok"
    end = routed("sessionEnd", {"sessionId": SESSION, "timestamp": 1, "cwd": "/p", "reason": "complete"})
    assert end.point == "chat.finished" and end.dispose and not end.decide


def test_tool_args_sent_as_a_json_string_are_read_as_the_object() -> None:
    call = routed("preToolUse", {**PRE, "toolArgs": json.dumps(PRE["toolArgs"])})
    assert call.payload["args"]["command"] == "rm -rf /tmp/victim"


def test_a_deny_is_the_permission_decision_the_model_reads_and_a_rewrite_is_modified_args() -> None:
    assert dialect.render(protocol.DIALECT, "preToolUse", dialect.Verdict("deny", "no recursive force delete")) == {
        "permissionDecision": "deny",
        "permissionDecisionReason": "no recursive force delete",
    }
    rewritten = {"command": "echo rewritten", "description": "run it"}
    assert dialect.render(protocol.DIALECT, "preToolUse", dialect.Verdict("allow", modified_input=rewritten)) == {
        "permissionDecision": "allow",
        "modifiedArgs": rewritten,
    }
    assert dialect.render(protocol.DIALECT, "preToolUse", dialect.Verdict(modified_input=rewritten)) == {"modifiedArgs": rewritten}
    assert dialect.render(protocol.DIALECT, "preToolUse", None) is None


def test_each_deciding_event_denies_in_its_own_field() -> None:
    deny = dialect.Verdict("deny", "R")
    assert dialect.render(protocol.DIALECT, "permissionRequest", deny) == {"behavior": "deny", "message": "R"}
    assert dialect.render(protocol.DIALECT, "permissionRequest", dialect.Verdict("allow")) == {"behavior": "allow"}
    for event in ("userPromptSubmitted", "agentStop", "subagentStop"):
        assert dialect.render(protocol.DIALECT, event, deny) == {"decision": "block", "reason": "R"}
    # No field blocks a session start: the user is told rather than the deny dropped.
    assert "cannot block sessionStart" in dialect.render(protocol.DIALECT, "sessionStart", deny)["systemMessage"]  # type: ignore[index]
    out = dialect.render(protocol.DIALECT, "postToolUse", dialect.Verdict(modified_output="short", injection="look"))
    assert out == {"modifiedResult": {"resultType": "success", "textResultForLlm": "short"}, "additionalContext": "look"}


def test_fail_closed_denies_only_the_tool_event() -> None:
    assert dialect.fail_closed(protocol.DIALECT, "preToolUse", "down") == {"permissionDecision": "deny", "permissionDecisionReason": "down"}
    assert dialect.fail_closed(protocol.DIALECT, "sessionStart", "down") is None


@given(command=st.text(max_size=80), extra=st.dictionaries(st.sampled_from(["traceparent", "agentId"]), st.text(max_size=10)))
def test_a_hook_written_for_copilot_gets_the_input_copilot_gave(command: str, extra: dict[str, str]) -> None:
    data = {**PRE, "toolArgs": {"command": command, "description": "run it"}, **extra}
    call = routed("preToolUse", data)
    rebuilt = hooks.hook_input(call.payload, call.point, "preToolUse", SESSION, "/tmp/proj")
    assert rebuilt == data


def test_an_agent_stop_hook_gets_copilot_s_own_field_names_back() -> None:
    data = {
        "sessionId": SESSION,
        "timestamp": 1,
        "cwd": "/p",
        "transcriptPath": "/t/events.jsonl",
        "stopReason": "end_turn",
        "stop_hook_active": False,
    }
    call = routed("agentStop", data)
    assert call.point == "agent.turn.stop" and call.decide
    assert hooks.hook_input(call.payload, call.point, "agentStop", SESSION, "/p") == data


def test_a_copilot_hook_s_answer_is_read_as_copilot_reads_it() -> None:
    deny = json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "nope"})
    assert hooks.answer("preToolUse", 0, deny) == {"decision": "deny", "reason": "nope"}
    assert hooks.answer("preToolUse", 2, "") == {"decision": "deny", "reason": "Denied by preToolUse hook: hook exited with code 2"}
    assert hooks.answer("preToolUse", 1, deny) is None  # Copilot lets a failed hook's event go on
    # An allow abstains (the guards after it still run); a rewrite carries over.
    assert hooks.answer("preToolUse", 0, json.dumps({"permissionDecision": "allow"})) is None
    assert hooks.answer("preToolUse", 0, json.dumps({"modifiedArgs": {"command": "ls"}})) == {"modifiedInput": {"command": "ls"}}
    assert hooks.answer("permissionRequest", 0, json.dumps({"behavior": "deny", "message": "m"})) == {"decision": "deny", "reason": "m"}
    assert hooks.answer("agentStop", 0, json.dumps({"decision": "block", "reason": "go on"})) == {"decision": "deny", "reason": "go on"}
    assert hooks.answer("sessionStart", 0, "not json") is None
