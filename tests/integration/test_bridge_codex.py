"""`hookd bridge codex` against a real daemon and real YAML hooks: Codex's hook inputs (as Codex 0.171 writes
them) in, the exact JSON and exit code Codex reads out, including when hookd cannot answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..conftest import Env, write_script

ANSWER = """
import json, os, pathlib, sys, time
payload = json.load(sys.stdin)
answer = json.loads(pathlib.Path(os.environ["ANSWERS"]).read_text()).get(os.environ["HOOKD_POINT"])
if answer is None:
    sys.exit(0)
if "sleep" in answer:
    time.sleep(answer.pop("sleep"))
print(json.dumps(answer))
"""
COMMON = {
    "session_id": "01a230d9-68a5-72a3-b617-45f2e2d99c20",
    "transcript_path": "/home/u/.codex/sessions/rollout.jsonl",
    "model": "gpt-5.5",
    "permission_mode": "default",
}
PRE_TOOL_USE = {
    **COMMON,
    "turn_id": "01a230d9-68b7-7222-8a47-a7fc06d3e5d3",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build"},
    "tool_use_id": "call_0001",
}
POINTS = ("tool.approval.pre", "permission.ask", "chat.message", "agent.turn.stop", "tool.execute.after")


class Bridge:
    def __init__(self, env: Env, root: Path) -> None:
        self.env = env
        self.answers = root / "answers.json"
        self.answers.write_text("{}")
        self.cwd = str(root)

    def call(self, answers: dict[str, Any], hook_input: dict[str, Any], *args: str) -> tuple[int, Any, str]:
        self.answers.write_text(json.dumps(answers))
        r = self.env.hookd("bridge", "codex", *args, input=json.dumps({"cwd": self.cwd, **hook_input}))
        return r.returncode, json.loads(r.stdout) if r.stdout.strip() else None, r.stderr


@pytest.fixture
def bridge(env: Env, daemon_factory, tmp_path: Path) -> Bridge:
    b = Bridge(env, tmp_path)
    answer = write_script(tmp_path / "answer.py", ANSWER)
    lines = ["hooks:"]
    for point in POINTS:
        lines += [f"  - name: answer-{point}", f"    point: {point}", "    type: decision", f"    command: {answer}"]
        lines += [f"    env: {{ANSWERS: {b.answers}}}", "    enabled: true"]
    env.write_global_hooks("\n".join(lines) + "\n")
    daemon_factory()
    return b


def test_pre_tool_use_deny_allow_rewrite_and_ask(bridge: Bridge) -> None:
    rc, out, _ = bridge.call({"tool.approval.pre": {"decision": "deny", "reason": "no"}}, PRE_TOOL_USE)
    assert rc == 0 and out == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}
    }
    # A plain allow is no answer at all in Codex's terms.
    assert bridge.call({"tool.approval.pre": {"decision": "allow"}}, PRE_TOOL_USE)[:2] == (0, None)
    rewrite = {"decision": "allow", "modifiedInput": {"command": "rm -r build"}}
    rc, out, _ = bridge.call({"tool.approval.pre": rewrite}, PRE_TOOL_USE)
    assert out["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": "rm -r build"},
    }
    rc, out, _ = bridge.call({"tool.approval.pre": {"decision": "ask", "reason": "check with a person"}}, PRE_TOOL_USE)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_other_events(bridge: Bridge) -> None:
    request = {**PRE_TOOL_USE, "hook_event_name": "PermissionRequest", "tool_input": {"command": "rm -rf build", "description": "d"}}
    request.pop("tool_use_id")
    _, out, _ = bridge.call({"permission.ask": {"decision": "deny", "reason": "no"}}, request)
    assert out == {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}
    prompt = {**COMMON, "turn_id": "t", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    _, out, _ = bridge.call({"chat.message": {"decision": "deny", "reason": "not today"}}, prompt)
    assert out == {"decision": "block", "reason": "not today"}
    stop = {**COMMON, "turn_id": "t", "hook_event_name": "Stop", "stop_hook_active": False, "last_assistant_message": "done"}
    _, out, _ = bridge.call({"agent.turn.stop": {"decision": "deny", "reason": "run the tests first"}}, stop)
    assert out == {"decision": "block", "reason": "run the tests first"}


def test_a_slow_hook_never_hangs_codex(bridge: Bridge) -> None:
    # hookd cuts the hook before the bridge gives up and answers, naming the timeout; the hook's
    # on_error (here continue) says what that means. (A hung daemon: tests/integration/test_agent_deadline.py.)
    # Three seconds, not one: the bridge's own start eats into its budget, and on a loaded machine a
    # one-second budget left hookd's answer (due a quarter second before it) no time to arrive.
    slow = {"tool.approval.pre": {"sleep": 8, "decision": "deny", "reason": "late"}}
    rc, out, _ = bridge.call(slow, PRE_TOOL_USE, "--timeout", "3")
    assert rc == 0 and "permissionDecision" not in json.dumps(out), out
    assert "timeout" in out["systemMessage"] and "the agent stops waiting for the call sooner" in out["systemMessage"]


def test_daemon_down_proceeds_or_denies_with_fail_closed(env: Env) -> None:
    data = json.dumps({"cwd": "/tmp", **PRE_TOOL_USE})
    r = env.hookd("bridge", "codex", input=data)
    assert (r.returncode, r.stdout) == (0, "") and "hookd is not running" in r.stderr and "the agent proceeds" in r.stderr
    r = env.hookd("bridge", "codex", "--fail-closed", input=data)
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert r.returncode == 0 and out["permissionDecision"] == "deny" and "hookd is not running" in out["permissionDecisionReason"]
    stop = json.dumps({**COMMON, "cwd": "/tmp", "turn_id": "t", "hook_event_name": "Stop", "stop_hook_active": False})
    r = env.hookd("bridge", "codex", "--fail-closed", input=stop)
    assert (r.returncode, r.stdout) == (0, "")


@pytest.mark.parametrize("raw", ["", "not json", "[1]", '{"session_id": "s"}'])
def test_bad_input_exits_1_with_a_reason(env: Env, raw: str) -> None:
    r = env.hookd("bridge", "codex", input=raw)
    assert (r.returncode, r.stdout) == (1, "") and "bad hook input" in r.stderr


def test_the_installed_shim_answers_in_codex_format(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import tomllib

    from hookd.agents.shim import compiler

    if compiler() is None:
        pytest.skip("no C compiler: install uses the Python bridge, covered above")
    b = Bridge(env, tmp_path)
    answer = write_script(tmp_path / "answer.py", ANSWER)
    env.write_global_hooks(
        f"hooks:\n  - name: answer\n    point: tool.approval.pre\n    type: decision\n    command: {answer}\n"
        f"    env: {{ANSWERS: {b.answers}}}\n    enabled: true\n"
    )
    daemon_factory()
    env.env["CODEX_HOME"] = str(env.home / ".codex")
    # Trusting needs Codex itself (tests/e2e/codex does it); here the hooks are run by hand.
    r = env.hookd("bridge", "install", "codex", "--no-trust", "--accept-untrusted")
    assert r.returncode == 0, r.stderr
    hooks = tomllib.loads((env.home / ".codex" / "config.toml").read_text())["hooks"]
    [command] = [g["hooks"][0]["command"] for g in hooks["PreToolUse"]]
    assert "claude-shim PreToolUse" in command and command.endswith("--agent codex --timeout 588")

    def run(answers: dict[str, Any]) -> tuple[int, Any]:
        b.answers.write_text(json.dumps(answers))
        # As Codex runs a command hook: through the shell, the hook input on stdin.
        done = subprocess.run(
            ["sh", "-c", command], input=json.dumps({"cwd": b.cwd, **PRE_TOOL_USE}), capture_output=True, text=True, env=env.env, timeout=60
        )
        return done.returncode, json.loads(done.stdout) if done.stdout.strip() else None

    assert run({"tool.approval.pre": {"decision": "deny", "reason": "no"}}) == (
        0,
        {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}},
    )
    # Codex's rules, not Claude Code's: a plain allow is no answer, an ask is a deny.
    assert run({"tool.approval.pre": {"decision": "allow"}}) == (0, None)
    assert run({"tool.approval.pre": {"decision": "ask"}})[1]["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_install_trusts_the_hooks_or_fails_naming_the_step(env: Env, tmp_path: Path) -> None:
    """Untrusted hooks guard nothing in Codex, which skips them without a word: install never ends with them
    untrusted and exit 0 unless the user insists."""
    config = tmp_path / "codex" / "config.toml"
    env.env["PATH"] = "/usr/bin:/bin"  # no codex there to trust them through
    r = env.hookd("bridge", "install", "codex", "--settings", str(config), "--no-shim")
    assert r.returncode == 1 and "not trusted, so Codex runs none of them" in r.stderr and "no `codex` on PATH" in r.stderr
    r = env.hookd("bridge", "install", "codex", "--settings", str(config), "--no-shim", "--agent-cli", str(tmp_path / "nope"))
    assert r.returncode == 1 and "is not an executable" in r.stderr, r.stderr
    r = env.hookd("bridge", "install", "codex", "--settings", str(config), "--no-shim", "--no-trust")
    assert r.returncode == 1 and "WARNING: the hooks are installed but NOT trusted" in r.stderr, r.stderr
    r = env.hookd("bridge", "install", "codex", "--settings", str(config), "--no-shim", "--no-trust", "--accept-untrusted")
    assert r.returncode == 0 and "NOT trusted" in r.stderr, r.stderr
    assert env.hookd("bridge", "uninstall", "codex", "--settings", str(config)).returncode == 0
    assert not (tmp_path / "codex").exists()
