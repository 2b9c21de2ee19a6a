"""The compiled shim for Claude Code's command-only events, built with the machine's C compiler and run
as Claude Code runs it: hook input on stdin, the agent's environment, the answer on stdout, exit 0."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from hookd.agents import settings_file, shim

from ..conftest import Env, write_script
from .httphooks import endpoint

START = {
    "session_id": "s-shim",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "hook_event_name": "SessionStart",
    "source": "startup",
}
PRE = {**START, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}

HOOK = """
import json, os, sys
payload = json.load(sys.stdin)
with open(os.environ["SEEN"], "a") as f:
    f.write(json.dumps({"point": os.environ["HOOKD_POINT"], "project": os.environ.get("HOOKD_PROJECT_DIR", ""),
                        "size": len(json.dumps(payload))}) + "\\n")
if os.environ["HOOKD_POINT"] == "agent.turn.start":
    print(json.dumps({"injection": "hello from hookd"}))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shim.compiler() is None:
        pytest.skip("no C compiler on this machine: the Python bridge is used instead (tested below)")
    result = shim.build(tmp_path_factory.mktemp("shim"))
    assert result.path is not None, result.why
    return result.path


def hooked(env: Env, tmp_path: Path) -> Path:
    seen = tmp_path / "seen.jsonl"
    hook = write_script(tmp_path / "hook.py", HOOK)
    lines = ["hooks:"]
    for point in ("agent.turn.start", "tool.approval.pre"):
        lines += [f"  - name: {point}", f"    point: {point}", "    type: decision", f"    command: {hook}", "    enabled: true"]
    env.write_global_hooks("\n".join(lines) + "\n")
    env.env["SEEN"] = str(seen)
    return seen


def run(argv: list[str], data: bytes, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_")}
    environ.update(extra or {})
    return subprocess.run(argv, input=data, capture_output=True, env=environ, timeout=60, check=False)


def test_the_shim_carries_an_event_and_its_answer(built: str, env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = hooked(env, tmp_path)
    ep = endpoint(daemon_factory())
    token_file = str(env.state / "hookd" / "http-token")
    project = tmp_path / "proj"
    project.mkdir()
    done = run([built, "SessionStart", str(ep.port), token_file], json.dumps(START).encode(), {"CLAUDE_PROJECT_DIR": str(project)})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["hookSpecificOutput"] == {"hookEventName": "SessionStart", "additionalContext": "hello from hookd"}
    (row,) = [json.loads(line) for line in seen.read_text().splitlines()]
    assert row["point"] == "agent.turn.start" and row["project"] == str(project)


def test_a_2_mib_input_goes_through_the_shim_whole(built: str, env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = hooked(env, tmp_path)
    ep = endpoint(daemon_factory())
    big = {**PRE, "tool_input": {"command": "echo " + "q" * (2 << 20)}}
    done = run([built, "PreToolUse", str(ep.port), str(env.state / "hookd" / "http-token")], json.dumps(big).encode())
    assert done.returncode == 0, done.stderr
    (row,) = [json.loads(line) for line in seen.read_text().splitlines()]
    assert row["size"] > 2 << 20


def test_daemon_down_fails_open_or_closed_as_asked(built: str, env: Env, daemon_factory) -> None:
    d = daemon_factory()
    ep = endpoint(d)
    d.stop()
    argv = [built, "PreToolUse", str(ep.port), str(env.state / "hookd" / "http-token")]
    done = run(argv, json.dumps(PRE).encode())
    assert done.returncode == 0 and done.stdout == b""
    assert b"not answering" in done.stderr and b"the agent proceeds" in done.stderr
    done = run([*argv, "--fail-closed"], json.dumps(PRE).encode())
    assert done.returncode == 0
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "--fail-closed" in out["permissionDecisionReason"]
    # Only tool calls are denied: other events proceed.
    done = run([built, "SessionStart", *argv[2:], "--fail-closed"], json.dumps(START).encode())
    assert done.returncode == 0 and done.stdout == b""


def test_a_secret_others_can_read_or_a_wrong_one_is_not_used(built: str, env: Env, daemon_factory, tmp_path: Path) -> None:
    ep = endpoint(daemon_factory())
    shared = tmp_path / "token"
    shared.write_text(ep.token)
    shared.chmod(0o644)
    done = run([built, "PreToolUse", str(ep.port), str(shared), "--fail-closed"], json.dumps(PRE).encode())
    assert b"cannot read the secret" in done.stderr and json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    wrong = tmp_path / "wrong"
    wrong.write_text("w" * 43)
    wrong.chmod(0o600)
    done = run([built, "PreToolUse", str(ep.port), str(wrong)], json.dumps(PRE).encode())
    # hookd runs but refused the call: the tool call is denied, not let through (test_shim_cannot_handle.py).
    assert done.returncode == 0 and b"HTTP 401" in done.stderr
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "HTTP 401" in out["permissionDecisionReason"]


def test_without_a_compiler_the_python_bridge_runs_the_command_events(env: Env, daemon_factory, tmp_path: Path) -> None:
    assert shim.build(tmp_path, cc=[str(tmp_path / "no-such-cc")]).path is None
    seen = hooked(env, tmp_path)
    daemon_factory()
    settings = env.home / ".claude" / "settings.json"
    r = env.hookd("bridge", "install", "--no-shim")
    assert r.returncode == 0 and "the Python bridge runs instead" in r.stderr, r.stderr
    doc = json.loads(settings.read_text())
    (group,) = [g for g in doc["hooks"]["SessionStart"] if settings_file.is_ours(g)]
    command = group["hooks"][0]["command"]
    assert settings_file.BRIDGE_ARGS in command and command.endswith("--timeout 588 --event SessionStart")
    assert group["hooks"][0]["timeout"] == 600  # the agent's own, a margin above the bridge's
    done = subprocess.run(
        ["sh", "-c", command], input=json.dumps(START).encode(), capture_output=True, env=env.env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == "hello from hookd"
    assert json.loads(seen.read_text().splitlines()[0])["point"] == "agent.turn.start"


def test_the_installed_shim_command_runs_as_written(env: Env, daemon_factory, tmp_path: Path) -> None:
    if shim.compiler() is None:
        pytest.skip("no C compiler")
    hooked(env, tmp_path)
    daemon_factory()
    assert env.hookd("bridge", "install").returncode == 0
    doc = json.loads((env.home / ".claude" / "settings.json").read_text())
    (group,) = [g for g in doc["hooks"]["SessionStart"] if settings_file.is_ours(g)]
    argv = shlex.split(group["hooks"][0]["command"])
    assert os.path.basename(argv[0]) == settings_file.SHIM_NAME and os.access(argv[0], os.X_OK)
    assert shutil.which(argv[0])
    done = subprocess.run(argv, input=json.dumps(START).encode(), capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] == "hello from hookd"
