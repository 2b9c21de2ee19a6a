"""`hookd bridge claude-code` end to end: real hook inputs in Claude Code's documented shapes, a real
daemon with real YAML hooks, and the exact output JSON and exit code Claude Code would read."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ..conftest import Env, write_script

DECISION_POINTS = (
    "tool.approval.pre",
    "tool.execute.after",
    "permission.ask",
    "chat.message",
    "agent.subagent.spawn.before",
    "experimental.session.compacting",
    "agent.turn.stop",
    "agent.turn.start",
    "agent.subagent.complete",
)
OBSERVED_POINTS = (
    *DECISION_POINTS,
    "tool.execute.error",
    "chat.finished",
    "custom.claude.Notification",
    "custom.claude.PostCompact",
)

ANSWER = """
import json, os, pathlib, sys, time
payload = json.load(sys.stdin)
answers = json.loads(pathlib.Path(os.environ["ANSWERS"]).read_text())
answer = answers.get(os.environ["HOOKD_POINT"])
if answer is None:
    sys.exit(0)
if "sleep" in answer:
    time.sleep(answer.pop("sleep"))
print(json.dumps(answer))
"""

RECORD = """
import json, os, pathlib, sys
payload = json.load(sys.stdin)
out = pathlib.Path(os.environ["SEEN"]) / (os.environ["HOOKD_POINT"] + ".jsonl")
with out.open("a") as f:
    f.write(json.dumps({"payload": payload, "session": os.environ["HOOKD_SESSION_ID"],
                        "project": os.environ["HOOKD_PROJECT_DIR"]}) + "\\n")
"""

COMMON = {
    "session_id": "abc123",
    "transcript_path": "/home/user/.claude/projects/p/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
    "permission_mode": "default",
}


class Bridge:
    def __init__(self, env: Env, root: Path) -> None:
        self.env = env
        self.answers = root / "answers.json"
        self.seen_dir = root / "seen"
        self.seen_dir.mkdir()
        self.project = root / "project"
        self.project.mkdir()
        self.set({})

    def set(self, answers: dict[str, Any]) -> None:
        self.answers.write_text(json.dumps(answers))

    def call(self, hook_input: dict[str, Any], *args: str) -> tuple[int, Any, str]:
        data = {**COMMON, "cwd": str(self.project), **hook_input}
        r = self.env.hookd("bridge", "claude-code", *args, input=json.dumps(data))
        out = json.loads(r.stdout) if r.stdout.strip() else None
        return r.returncode, out, r.stderr

    def seen(self, point: str, count: int = 1, timeout: float = 15) -> list[dict[str, Any]]:
        """What the observer on ``point`` saw; waits (hang guard only) for ``count`` events."""
        path = self.seen_dir / f"{point}.jsonl"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if path.exists():
                rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
                if len(rows) >= count:
                    return rows
            time.sleep(0.05)
        raise AssertionError(f"no event on {point} within {timeout} s")


@pytest.fixture
def bridge(env: Env, daemon_factory, tmp_path: Path) -> Bridge:
    b = Bridge(env, tmp_path)
    answer = write_script(tmp_path / "answer.py", ANSWER)
    record = write_script(tmp_path / "record.py", RECORD)
    lines = ["hooks:"]
    for point in DECISION_POINTS:
        lines += [
            f"  - name: answer-{point}",
            f"    point: {point}",
            "    type: decision",
            f"    command: {answer}",
            f"    env: {{ANSWERS: {b.answers}}}",
            "    enabled: true",
        ]
    for point in OBSERVED_POINTS:
        lines += [
            f"  - name: record-{point}",
            f"    point: {point}",
            "    type: observer",
            f"    command: {record}",
            f"    env: {{SEEN: {b.seen_dir}}}",
            "    enabled: true",
        ]
    env.write_global_hooks("\n".join(lines) + "\n")
    daemon_factory()
    return b


PRE_TOOL_USE = {
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf /tmp/build", "description": "Clean build", "timeout": 120000, "run_in_background": False},
    "tool_use_id": "toolu_01ABC123",
}


def test_pre_tool_use_deny(bridge: Bridge) -> None:
    bridge.set({"tool.approval.pre": {"decision": "deny", "reason": "Destructive command blocked by hook"}})
    assert bridge.call(PRE_TOOL_USE)[:2] == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "Destructive command blocked by hook",
            }
        },
    )
    seen = bridge.seen("tool.approval.pre")[0]
    assert seen["payload"]["toolName"] == "execute_command" and seen["payload"]["agentToolName"] == "Bash"
    assert seen["payload"]["agent"] == "claude-code"
    assert seen["payload"]["args"]["command"] == "rm -rf /tmp/build"
    assert seen["payload"]["toolUseId"] == "toolu_01ABC123"
    assert "tool_input" not in seen["payload"]["hookInput"]  # sent once, as args
    assert seen["session"] == "abc123"
    assert seen["project"] == str(bridge.project)


def test_pre_tool_use_allow_with_updated_input_and_context(bridge: Bridge) -> None:
    bridge.set(
        {
            "tool.approval.pre": {
                "decision": "allow",
                "reason": "safe in the sandbox",
                "modifiedInput": {"command": "rm -rf /sandbox/build"},
                "injection": "Commands run in /sandbox.",
            }
        }
    )
    assert bridge.call(PRE_TOOL_USE)[:2] == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": "safe in the sandbox",
                "updatedInput": {"command": "rm -rf /sandbox/build"},
                "additionalContext": "Commands run in /sandbox.",
            }
        },
    )


def test_pre_tool_use_ask_and_abstain(bridge: Bridge) -> None:
    bridge.set({"tool.approval.pre": {"decision": "ask", "reason": "deletes files; confirm?"}})
    assert bridge.call(PRE_TOOL_USE)[:2] == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "ask",
                "permissionDecisionReason": "deletes files; confirm?",
            }
        },
    )
    bridge.set({})
    assert bridge.call(PRE_TOOL_USE)[:2] == (0, None)


POST_TOOL_USE = {
    "hook_event_name": "PostToolUse",
    "tool_name": "Write",
    "tool_input": {"file_path": "/path/to/file.txt", "content": "file content"},
    "tool_response": {"filePath": "/path/to/file.txt", "type": "create"},
    "tool_use_id": "toolu_01ABC123",
    "duration_ms": 12,
}


def test_post_tool_use_replaces_output_and_adds_context(bridge: Bridge) -> None:
    bridge.set(
        {"tool.execute.after": {"modifiedOutput": {"filePath": "/path/to/file.txt", "type": "redacted"}, "injection": "generated file"}}
    )
    assert bridge.call(POST_TOOL_USE)[:2] == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PostToolUse",
                "additionalContext": "generated file",
                "updatedToolOutput": {"filePath": "/path/to/file.txt", "type": "redacted"},
            }
        },
    )
    payload = bridge.seen("tool.execute.after")[0]["payload"]
    # Observers see the chain's result.
    assert payload["output"] == {"filePath": "/path/to/file.txt", "type": "redacted"}
    assert "tool_response" not in payload["hookInput"]
    assert payload["durationMs"] == 12


def test_post_tool_use_deny_blocks_with_reason(bridge: Bridge) -> None:
    bridge.set({"tool.execute.after": {"decision": "deny", "reason": "lint failed"}})
    assert bridge.call(POST_TOOL_USE)[:2] == (0, {"decision": "block", "reason": "lint failed"})


def test_post_tool_use_failure_is_observed(bridge: Bridge) -> None:
    event = {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "npm test", "description": "Run test suite"},
        "tool_use_id": "toolu_01ABC123",
        "error": "Exit code 1\nError: Cannot find module 'express'",
        "is_interrupt": False,
        "duration_ms": 4187,
    }
    assert bridge.call(event)[:2] == (0, None)
    payload = bridge.seen("tool.execute.error")[0]["payload"]
    assert payload["error"].startswith("Exit code 1")
    assert payload["isInterrupt"] is False


PERMISSION_REQUEST = {
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf node_modules", "description": "Remove node_modules directory"},
    "permission_suggestions": [
        {
            "type": "addRules",
            "rules": [{"toolName": "Bash", "ruleContent": "rm -rf node_modules"}],
            "behavior": "allow",
            "destination": "localSettings",
        }
    ],
}


def test_permission_request_allow_and_deny(bridge: Bridge) -> None:
    bridge.set({"permission.ask": {"decision": "allow", "modifiedInput": {"command": "npm run lint"}}})
    assert bridge.call(PERMISSION_REQUEST)[:2] == (
        0,
        {
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedInput": {"command": "npm run lint"}},
            }
        },
    )
    bridge.set({"permission.ask": {"decision": "deny", "reason": "not on this branch"}})
    assert bridge.call(PERMISSION_REQUEST)[:2] == (
        0,
        {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "not on this branch"}}},
    )


USER_PROMPT = {"hook_event_name": "UserPromptSubmit", "prompt": "Write a function to calculate the factorial of a number"}


def test_user_prompt_submit_block_and_context(bridge: Bridge) -> None:
    bridge.set({"chat.message": {"decision": "deny", "reason": "prompts may not contain secrets"}})
    assert bridge.call(USER_PROMPT)[:2] == (0, {"decision": "block", "reason": "prompts may not contain secrets"})
    bridge.set({"chat.message": {"injection": "Current branch: main"}})
    assert bridge.call(USER_PROMPT)[:2] == (
        0,
        {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "Current branch: main"}},
    )
    assert bridge.seen("chat.message", 2)[0]["payload"]["prompt"] == USER_PROMPT["prompt"]


def test_stop_deny_blocks_so_the_agent_keeps_going(bridge: Bridge) -> None:
    stop = {"hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "Done."}
    bridge.set({"agent.turn.stop": {"decision": "deny", "reason": "the tests are still failing"}})
    assert bridge.call(stop)[:2] == (0, {"decision": "block", "reason": "the tests are still failing"})
    assert bridge.seen("agent.turn.stop")[0]["payload"]["outcome"]["decision"] == "deny"


def test_subagent_stop_deny_blocks_so_the_subagent_keeps_working(bridge: Bridge) -> None:
    # Claude Code's hooks reference: SubagentStop takes the same decision control as Stop, a top-level
    # decision "block" with the reason the subagent is given to go on.
    sub_stop = {"hook_event_name": "SubagentStop", "stop_hook_active": False, "agent_id": "def456", "agent_type": "Explore"}
    bridge.set({"agent.subagent.complete": {"decision": "deny", "reason": "the analysis misses the tests directory"}})
    assert bridge.call(sub_stop)[:2] == (0, {"decision": "block", "reason": "the analysis misses the tests directory"})
    assert bridge.seen("agent.subagent.complete")[0]["payload"]["outcome"]["decision"] == "deny"


def test_session_start_injects_context(bridge: Bridge) -> None:
    bridge.set({"agent.turn.start": {"injection": "Project rules: no force pushes"}})
    start = {"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-6"}
    assert bridge.call(start)[:2] == (
        0,
        {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Project rules: no force pushes"}},
    )


def test_stop_and_subagent_stop_reach_their_observer_points(bridge: Bridge) -> None:
    stop = {
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "I've completed the refactoring.",
        "background_tasks": [],
        "session_crons": [],
    }
    # no decision hook answers: the agent stops as usual; observers see the event
    assert bridge.call(stop)[:2] == (0, None)
    assert bridge.seen("agent.turn.stop")[0]["payload"]["lastAssistantMessage"] == "I've completed the refactoring."
    sub_stop = {
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": "def456",
        "agent_type": "Explore",
        "agent_transcript_path": "~/.claude/projects/p/abc123/subagents/agent-def456.jsonl",
        "last_assistant_message": "Analysis complete.",
    }
    assert bridge.call(sub_stop)[:2] == (0, None)
    assert bridge.seen("agent.subagent.complete")[0]["payload"]["agentType"] == "Explore"


def test_subagent_start_context_and_unblockable_deny(bridge: Bridge) -> None:
    start = {"hook_event_name": "SubagentStart", "agent_id": "agent-abc123", "agent_type": "Explore"}
    bridge.set({"agent.subagent.spawn.before": {"injection": "Follow security guidelines for this task"}})
    assert bridge.call(start)[:2] == (
        0,
        {"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Follow security guidelines for this task"}},
    )
    bridge.set({"agent.subagent.spawn.before": {"decision": "deny", "reason": "no subagents in CI"}})
    assert bridge.call(start)[:2] == (0, {"systemMessage": "hookd: no subagents in CI (Claude Code cannot block SubagentStart)"})


def test_session_start_attaches_and_session_end_disposes(bridge: Bridge, env: Env) -> None:
    start = {"hook_event_name": "SessionStart", "source": "startup", "model": "claude-sonnet-4-6"}
    assert bridge.call(start)[:2] == (0, None)
    seen = bridge.seen("agent.turn.start")[0]
    assert seen["payload"]["source"] == "startup"
    assert seen["session"] == "abc123"
    assert json.loads(env.hookd("status", "--json").stdout)["sessions"] == 1
    assert bridge.call({"hook_event_name": "SessionEnd", "reason": "other"})[:2] == (0, None)
    assert bridge.seen("chat.finished")[0]["payload"]["reason"] == "other"
    assert json.loads(env.hookd("status", "--json").stdout)["sessions"] == 0
    # A second SessionEnd for a session hookd no longer holds is not an error.
    assert bridge.call({"hook_event_name": "SessionEnd", "reason": "other"})[:2] == (0, None)


def test_pre_compact_block(bridge: Bridge) -> None:
    bridge.set({"experimental.session.compacting": {"decision": "deny", "reason": "keep full context during the migration"}})
    event = {"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": None}
    assert bridge.call(event)[:2] == (0, {"decision": "block", "reason": "keep full context during the migration"})


def test_notification_and_unmapped_events_are_observed(bridge: Bridge) -> None:
    note = {
        "hook_event_name": "Notification",
        "message": "Claude needs your permission",
        "title": "Permission needed",
        "notification_type": "permission_prompt",
    }
    assert bridge.call(note)[:2] == (0, None)
    assert bridge.seen("custom.claude.Notification")[0]["payload"]["notificationType"] == "permission_prompt"
    post_compact = {"hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": "Summary..."}
    assert bridge.call(post_compact)[:2] == (0, None)
    assert bridge.seen("custom.claude.PostCompact")[0]["payload"]["compactSummary"] == "Summary..."


def test_a_slow_hook_never_hangs_the_agent(bridge: Bridge) -> None:
    # The daemon cuts the hook before the bridge's deadline and answers: the hook timed out, which the
    # user is told; its on_error (here continue) decides what that means.
    bridge.set({"tool.approval.pre": {"sleep": 8, "decision": "allow"}})
    rc, out, _ = bridge.call(PRE_TOOL_USE, "--timeout", "1")
    assert rc == 0 and "permissionDecision" not in json.dumps(out), out
    assert "timeout" in out["systemMessage"] and "the agent stops waiting for the call sooner" in out["systemMessage"]


def test_guard_hook_from_yaml_denies_through_the_bridge(env: Env, daemon_factory, tmp_path: Path) -> None:
    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        p = json.load(sys.stdin)
        if p.get("toolName") == "execute_command" and "rm -rf" in p.get("args", {}).get("command", ""):
            print(json.dumps({"decision": "deny", "reason": "no recursive force delete"}))
        """,
    )
    env.write_global_hooks(
        f"""
        hooks:
          - name: block-dangerous-commands
            point: tool.approval.pre
            type: decision
            command: {guard}
            priority: 100
            enabled: true
        """
    )
    daemon_factory()
    data = {**COMMON, "cwd": str(tmp_path), **PRE_TOOL_USE}
    r = env.hookd("bridge", "claude-code", input=json.dumps(data))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "no recursive force delete",
        }
    }
    safe = {**data, "tool_input": {"command": "npm test"}}
    r = env.hookd("bridge", "claude-code", input=json.dumps(safe))
    assert (r.returncode, r.stdout) == (0, "")


def test_daemon_down_default_proceeds_quietly(env: Env) -> None:
    data = {**COMMON, "cwd": "/tmp", **PRE_TOOL_USE}
    r = env.hookd("bridge", "claude-code", input=json.dumps(data))
    assert (r.returncode, r.stdout) == (0, "")
    lines = r.stderr.splitlines()
    assert len(lines) == 1
    assert "hookd is not running" in lines[0] and env.socket in lines[0] and "the agent proceeds" in lines[0]


def test_daemon_down_fail_closed_denies_only_tool_calls(env: Env) -> None:
    data = {**COMMON, "cwd": "/tmp", **PRE_TOOL_USE}
    r = env.hookd("bridge", "claude-code", "--fail-closed", input=json.dumps(data))
    assert r.returncode == 0
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    assert "hookd is not running" in out["permissionDecisionReason"]
    assert len(r.stderr.splitlines()) == 1
    prompt = {**COMMON, "cwd": "/tmp", **USER_PROMPT}
    r = env.hookd("bridge", "claude-code", "--fail-closed", input=json.dumps(prompt))
    assert (r.returncode, r.stdout) == (0, "")


def test_bad_input_is_a_non_blocking_error(env: Env) -> None:
    for text in ("not json", "[]", "{}"):
        r = env.hookd("bridge", "claude-code", input=text)
        assert (r.returncode, r.stdout) == (1, ""), text
        assert r.stderr.startswith("hookd bridge: bad hook input")


def test_help_and_bad_options_go_through_argparse(env: Env) -> None:
    r = env.hookd("bridge", "claude-code", "--help")
    assert r.returncode == 0 and "--fail-closed" in r.stdout and "--timeout" in r.stdout
    r = env.hookd("bridge", "claude-code", "--timeout", "soon", input="{}")
    assert r.returncode == 2 and "invalid float value" in r.stderr


@pytest.mark.parametrize("fail_closed", [False, True])
def test_an_agent_that_never_closes_stdin_does_not_hang_the_bridge(env: Env, fail_closed: bool) -> None:
    """The bridge gives up on an input that never ends; under --fail-closed, on the event install named (--event),
    that is a deny."""
    import subprocess

    from ..conftest import HOOKD

    proc = subprocess.Popen(
        [*HOOKD, "bridge", "claude-code", "--timeout", "0.5", *(["--fail-closed", "--event", "PreToolUse"] if fail_closed else [])],
        env=env.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(b'{"hook_event_name": "PreToolUse"')  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        proc.wait(timeout=30)  # stdin stays open, as with an agent that never closes it
        out, err = proc.stdout.read(), proc.stderr.read()  # type: ignore[union-attr]
    finally:
        proc.kill()
        proc.stdin.close()  # type: ignore[union-attr]
    assert b"no complete hook input on stdin within 0.5 s" in err
    if not fail_closed:
        assert (proc.returncode, out) == (0, b"")
        return
    assert proc.returncode == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny" and "no complete hook input" in answer["permissionDecisionReason"], answer
