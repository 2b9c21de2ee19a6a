"""Cline's hook protocol: its inputs (as the real CLI 3.0.65 sent them) routed onto hookd's points, its
shell tool's commands seen whole by a guard, a deny answered as the harmless command that tells the model
why (whatever the reason holds), a rewrite put back into Cline's `commands`, and a hook file written for
Cline given back the input Cline gave."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.cline import hooks, protocol

TASK = "conv_1796441496591_se3dmq1"
COMMON = {
    "clineVersion": "",
    "timestamp": "2026-12-05T03:31:36.821Z",
    "taskId": TASK,
    "sessionContext": {"rootSessionId": "1796441496472_diluk"},
    "workspaceRoots": ["/tmp/proj"],
    "workspaceInfo": {"rootPath": "/tmp/proj", "hint": "proj"},
    "userId": "unknown",
    "agent_id": "agent_1796441496570_gsy7tg",
    "parent_agent_id": None,
}


def pre(commands: list[str]) -> dict[str, Any]:
    return {
        **COMMON,
        "hookName": "tool_call",
        "iteration": 1,
        "tool_call": {"id": "call_0", "name": "run_commands", "input": {"commands": commands}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": json.dumps(commands, separators=(",", ":"))}},
    }


def routed(event: str, data: dict[str, Any]) -> dialect.Call:
    return dialect.route(protocol.DIALECT, {**data, "hook_event_name": event}, {})


def test_a_tool_call_with_several_commands_reaches_the_guards_as_one_script_in_the_task_s_session() -> None:
    call = routed("PreToolUse", pre(["echo fine", "rm -rf /tmp/victim"]))
    assert (call.point, call.decide, call.session, call.project) == ("tool.approval.pre", True, TASK, "/tmp/proj")
    p = call.payload
    assert (p["toolName"], p["agentToolName"], p["agent"]) == ("execute_command", "run_commands", "cline")
    assert p["args"] == {"commands": ["echo fine", "rm -rf /tmp/victim"], "command": "echo fine\nrm -rf /tmp/victim"}
    assert p["toolCallId"] == "call_0"
    assert "preToolUse" not in p and "preToolUse" not in p["hookInput"]  # the string-encoded copy travels no more


def test_the_task_events_are_observed_and_attach_and_dispose_the_session() -> None:
    start = routed("TaskStart", {**COMMON, "hookName": "agent_start", "taskStart": {"taskMetadata": {}}})
    assert (start.point, start.decide, start.attach) == ("agent.turn.start", False, True)
    done = routed("TaskComplete", {**COMMON, "hookName": "agent_end", "turn": {"outputText": "ok", "status": "completed"}})
    assert (done.point, done.decide, done.dispose) == ("chat.finished", False, True)
    post = routed(
        "PostToolUse", {**COMMON, "tool_result": {"id": "call_0", "name": "run_commands", "input": {"commands": ["ls"]}, "output": []}}
    )
    assert post.point == "tool.execute.after" and post.payload["output"] == []


def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", command], capture_output=True, text=True, cwd=cwd, timeout=30, check=False)


def test_a_deny_replaces_the_commands_with_one_that_fails_and_tells_the_model_why(tmp_path: Path) -> None:
    out = dialect.render(protocol.DIALECT, "PreToolUse", dialect.Verdict("deny", "no recursive force delete"), "run_commands")
    assert out is not None and set(out) == {"overrideInput"}
    [command] = out["overrideInput"]["commands"]
    done = run_shell(command, tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "blocked by hookd: no recursive force delete\n")


@settings(max_examples=60, deadline=None)
@given(reason=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=60))
def test_whatever_the_reason_holds_the_deny_command_runs_nothing_of_it(tmp_path_factory: Any, reason: str) -> None:
    where = tmp_path_factory.mktemp("deny")
    hostile = f"{reason}'; touch pwned; echo '$(touch pwned2)`touch pwned3`"
    out = dialect.render(protocol.DIALECT, "PreToolUse", dialect.Verdict("deny", hostile), None)
    [command] = out["overrideInput"]["commands"]  # type: ignore[index]
    done = run_shell(command, where)
    assert done.returncode == 1 and done.stdout == ""
    assert list(where.iterdir()) == []
    assert done.stderr.startswith("blocked by hookd: ") and done.stderr.count("\n") == 1


def test_a_deny_of_a_tool_whose_input_cannot_be_made_harmless_cancels_the_run() -> None:
    out = dialect.render(protocol.DIALECT, "PreToolUse", dialect.Verdict("deny", "R"), "editor")
    assert out == {"cancel": True, "errorMessage": "R"}


def rewritten(commands: list[str], modified: dict[str, Any]) -> dict[str, Any] | None:
    call = routed("PreToolUse", pre(commands))
    return dialect.render(
        protocol.DIALECT, "PreToolUse", dialect.for_agent(call, dialect.Verdict("allow", modified_input=modified)), "run_commands"
    )


def test_a_rewrite_goes_back_into_cline_s_commands() -> None:
    sent = {"commands": ["echo original > out", "ls"], "command": "echo original > out\nls"}
    # A guard that rewrote the script (hookd's name for it): it runs as one command.
    out = rewritten(sent["commands"], {**sent, "command": "echo rewritten > out"})
    assert out == {"overrideInput": {"commands": ["echo rewritten > out"]}}
    # A guard that rewrote the list (Cline's own name), leaving the script as it was: the list as it gave it.
    assert rewritten(sent["commands"], {**sent, "commands": ["echo a", "echo b"]}) == {"overrideInput": {"commands": ["echo a", "echo b"]}}
    # A hook that gave only the list.
    assert rewritten(sent["commands"], {"commands": ["pwd"]}) == {"overrideInput": {"commands": ["pwd"]}}


def test_fail_closed_denies_the_shell_call_in_cline_s_form(tmp_path: Path) -> None:
    out = dialect.fail_closed(protocol.DIALECT, "PreToolUse", "hookd is down")
    [command] = out["overrideInput"]["commands"]  # type: ignore[index]
    assert run_shell(command, tmp_path).stderr == "blocked by hookd: hookd is down\n"
    assert dialect.fail_closed(protocol.DIALECT, "TaskStart", "down") is None


@given(commands=st.lists(st.text(max_size=30), min_size=1, max_size=3))
def test_a_hook_file_written_for_cline_gets_the_input_cline_gave(commands: list[str]) -> None:
    data = pre(commands)
    call = routed("PreToolUse", data)
    assert hooks.hook_input(call.payload, call.point, "PreToolUse", TASK, "/tmp/proj") == data


def test_a_cline_hook_s_answer_is_read_as_cline_reads_it() -> None:
    cancel = json.dumps({"cancel": True, "errorMessage": "touch is not allowed"})
    assert hooks.answer("PreToolUse", cancel, "run_commands") == {"decision": "deny", "reason": "touch is not allowed"}
    control = "noise\nHOOK_CONTROL\t" + json.dumps({"overrideInput": {"commands": ["ls", "pwd"]}}) + "\n"
    assert hooks.answer("PreToolUse", control, "run_commands") == {"modifiedInput": {"commands": ["ls", "pwd"]}}
    assert hooks.answer("PreToolUse", json.dumps({"context": "careful"}), "run_commands") == {"injection": "careful"}
    assert hooks.answer("PreToolUse", "not json", "run_commands") is None
