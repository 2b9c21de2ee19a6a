"""`hookd bridge run-hook AGENT`: one adapter runs every agent's imported hooks, each by its HookFormat.

Copilot CLI's and Cline's hooks run as `hookd import` wrote them (``--event EVENT -- CMD``): the agent's input
on stdin, its environment as forwarded, in its working directory, the hook's stderr passed on, and its answer
read as the agent reads it; without ``--event`` the point names the event."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hookd.agents import adapter

HOOK = """import json, os, sys
data = json.load(sys.stdin)
sys.stderr.write("said on stderr\\n")
print(PREFIX + json.dumps(ANSWER(data, os.environ.get("FROM_AGENT", ""), os.getcwd())))
"""


def run_hook(tmp_path: Path, agent: str, args: list[str], prefix: str, answer: str) -> subprocess.CompletedProcess[str]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    hook = tmp_path / "hook.py"
    hook.write_text(f"PREFIX = {prefix!r}\nANSWER = {answer}\n" + HOOK)
    hookd = {"HOOKD_POINT": "tool.approval.pre", "HOOKD_SESSION_ID": "s1", "HOOKD_PROJECT_DIR": str(project)}
    env = {**os.environ, "HOME": str(tmp_path), **hookd}
    payload = {"toolName": "shell", "agentToolName": "bash", "args": {"command": "ls"}, "agentEnv": {"FROM_AGENT": "agent"}}
    return subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "run-hook", agent, *args, "--", sys.executable, str(hook)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("args", [["--event", "preToolUse"], []])
def test_a_copilot_hook_denies_with_its_reason_in_the_input_s_directory(tmp_path: Path, args: list[str]) -> None:
    reason = "f\"{d['toolName']} {d['toolArgs']} {agent} {cwd}\""
    answer = f'lambda d, agent, cwd: {{"permissionDecision": "deny", "permissionDecisionReason": {reason}}}'
    done = run_hook(tmp_path, "copilot", args, "", answer)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"decision": "deny", "reason": f"bash {{'command': 'ls'}} agent {tmp_path / 'project'}"}
    assert "said on stderr" in done.stderr


@pytest.mark.parametrize("args", [["--event", "PreToolUse"], []])
def test_a_cline_hook_s_cancel_denies_the_call_in_the_workspace(tmp_path: Path, args: list[str]) -> None:
    answer = "lambda d, agent, cwd: {\"cancel\": True, \"errorMessage\": f\"{d['preToolUse']['toolName']} {d['hookName']} {agent} {cwd}\"}"
    done = run_hook(tmp_path, "cline", args, "HOOK_CONTROL\t", answer)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"decision": "deny", "reason": f"bash tool_call agent {tmp_path / 'project'}"}
    assert "said on stderr" in done.stderr


def test_a_copilot_hook_s_exit_2_denies_only_before_a_tool_runs(tmp_path: Path) -> None:
    hook = tmp_path / "two.sh"
    hook.write_text("exit 2\n")
    denied = {"decision": "deny", "reason": "Denied by preToolUse hook: hook exited with code 2"}
    for event, expected in (("preToolUse", denied), ("postToolUse", None)):
        done = subprocess.run(
            [sys.executable, "-m", "hookd", "bridge", "run-hook", "copilot", "--event", event, "--", "sh", str(hook)],
            input="{}",
            capture_output=True,
            text=True,
            env={**os.environ, "HOME": str(tmp_path)},
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert (json.loads(done.stdout) if done.stdout.strip() else None) == expected


@pytest.mark.parametrize("agent", ["copilot", "cline"])
def test_no_command_names_the_agent_s_form(tmp_path: Path, agent: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "run-hook", agent, "--event", "E"],
        input="{}",
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert f"no command given (hookd bridge run-hook {agent} --event EVENT -- CMD ...)" in done.stderr


def test_every_agent_with_imported_hooks_runs_through_the_one_adapter() -> None:
    assert {"claude-code", "gemini", "copilot", "cline"} <= set(adapter.FORMATS)
    for agent in adapter.FORMATS:
        assert adapter.hook_format(agent).prog.startswith("hookd bridge run-hook")
