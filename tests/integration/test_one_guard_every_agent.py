"""The README's guard, copied as written into ~/.config/hookd/hooks.yaml, stops `rm -rf` on every path an
agent reaches hookd by: Claude Code's and Qwen Code's HTTP hooks, Codex's endpoint, the Python bridges of
Claude Code, Qwen Code, Codex and Gemini CLI. Each call names its agent in its event and in `hookd tail`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Env
from tests.docs.test_samples import readme_hooks_file

from .httphooks import endpoint

COMMAND = "rm -rf /tmp/one-guard-victim"
COMMON = {"session_id": "s-{agent}", "transcript_path": "/t.jsonl", "permission_mode": "default"}
# Each agent's own tool call, as its hook input carries it.
CALLS = {
    "claude-code": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": COMMAND, "description": "clean"}},
    "qwen": {"hook_event_name": "PreToolUse", "tool_name": "run_shell_command", "tool_input": {"command": COMMAND, "is_background": False}},
    "codex": {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": COMMAND}, "turn_id": "t1", "model": "m"},
    "gemini": {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": COMMAND}},
}


def _input(agent: str, cwd: Path) -> dict[str, object]:
    return {**{k: v.format(agent=agent) for k, v in COMMON.items()}, "cwd": str(cwd), **CALLS[agent]}


def _denied(agent: str, answer: dict[str, object]) -> bool:
    if agent == "gemini":
        return answer.get("decision") == "deny"
    specific = answer.get("hookSpecificOutput")
    return isinstance(specific, dict) and specific.get("permissionDecision") == "deny"


@pytest.fixture
def guarded(env: Env, daemon_factory) -> Env:  # type: ignore[no-untyped-def]
    env.write_global_hooks(readme_hooks_file())
    env.daemon = daemon_factory()  # type: ignore[attr-defined]
    return env


@pytest.mark.parametrize("agent", ["claude-code", "qwen", "codex"])
def test_the_readme_guard_denies_rm_rf_over_each_agent_s_http_endpoint(guarded: Env, tmp_path: Path, agent: str) -> None:
    ep = endpoint(guarded.daemon)  # type: ignore[attr-defined]
    status, body = ep.post(_input(agent, tmp_path), agent=agent)
    assert status == 200, body
    answer = json.loads(body)
    assert _denied(agent, answer), answer
    assert "'rm -rf' is blocked" in json.dumps(answer)
    [event] = _tail(guarded, agent)
    assert event["payload"]["agent"] == agent and event["payload"]["toolName"] == "execute_command"
    assert event["payload"]["agentToolName"] == CALLS[agent]["tool_name"]
    assert event["decided_by"]["name"] == "block-dangerous-commands"


@pytest.mark.parametrize("agent", ["claude-code", "qwen", "codex", "gemini"])
def test_the_readme_guard_denies_rm_rf_through_each_python_bridge(guarded: Env, tmp_path: Path, agent: str) -> None:
    r = guarded.hookd("bridge", agent, input=json.dumps(_input(agent, tmp_path)))
    assert r.returncode == 0, r.stderr
    assert _denied(agent, json.loads(r.stdout)), r.stdout
    [event] = _tail(guarded, agent)
    assert event["decision"] == "deny" and event["payload"]["agent"] == agent


def test_tail_names_the_agent_of_each_call(guarded: Env, tmp_path: Path) -> None:
    ep = endpoint(guarded.daemon)  # type: ignore[attr-defined]
    for agent in ("claude-code", "qwen"):
        status, _ = ep.post(_input(agent, tmp_path), agent=agent)
        assert status == 200
    r = guarded.hookd("tail", "--no-follow", "--since", "0", "--point", "tool.approval.pre")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    assert "[claude-code]" in lines[0] and "execute_command (Bash)" in lines[0]
    assert "[qwen]" in lines[1] and "execute_command (run_shell_command)" in lines[1]
    stats = json.loads(guarded.hookd("stats", "--json").stdout)
    assert {g["name"]: g["life"]["denies"] for g in stats["agents"]} == {"claude-code": 1, "qwen": 1}


def _tail(env: Env, agent: str) -> list[dict[str, object]]:
    r = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre", "--session", f"s-{agent}")
    assert r.returncode == 0, r.stderr
    return [e for e in map(json.loads, r.stdout.splitlines()) if e.get("kind") == "decide"]
