"""TeammateIdle and TaskCompleted: Claude Code blocks them only when a command hook exits 2, feeding its
stderr back (the teammate keeps working; the task is not marked completed). A hookd deny there must do
exactly that through the shim and the Python bridge, and an HTTP hook, which cannot exit 2, must say so."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hookd.agents import settings_file, shim

from ..conftest import HOOKD, Env, write_script
from .httphooks import endpoint, status_and_body

COMMON = {"session_id": "s-team", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "permission_mode": "default"}
# The inputs of Claude Code's hooks reference for these two events.
IDLE = {**COMMON, "hook_event_name": "TeammateIdle", "teammate_name": "researcher", "team_name": "my-project"}
DONE = {
    **COMMON,
    "hook_event_name": "TaskCompleted",
    "task_id": "task-001",
    "task_subject": "Implement user authentication",
    "task_description": "Add login and signup endpoints",
    "teammate_name": "implementer",
    "team_name": "my-project",
}
REASON = "Tests are failing: fix them before completing the task"
GUARD = f"""
import json, sys
payload = json.load(sys.stdin)
if payload.get("taskSubject", "").startswith("Implement") or payload.get("teammateName") == "researcher":
    print(json.dumps({{"decision": "deny", "reason": {REASON!r}}}))
"""


def guarded(env: Env, tmp_path: Path) -> None:
    guard = write_script(tmp_path / "guard.py", GUARD)
    lines = ["hooks:"]
    for event in ("TaskCompleted", "TeammateIdle"):
        point = f"custom.claude.{event}"
        lines += [f"  - name: {event}-check", f"    point: {point}", "    type: decision", f"    command: {guard}", "    enabled: true"]
    env.write_global_hooks("\n".join(lines) + "\n")


def run(argv: list[str], hook_input: dict, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=json.dumps(hook_input).encode(), capture_output=True, env=environ, timeout=120, check=False)


def test_the_shim_exits_2_with_the_reason_on_a_deny(env: Env, daemon_factory, tmp_path: Path) -> None:
    if shim.compiler() is None:
        pytest.skip("no C compiler")
    built = shim.build(tmp_path / "bin").path
    assert built is not None
    guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    token = str(env.state / "hookd" / "http-token")
    for hook_input in (IDLE, DONE):
        done = run([built, hook_input["hook_event_name"], str(ep.port), token], hook_input)
        assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", REASON + "\n")
    # Nothing to block: exit 0 and no output, Claude Code's normal flow.
    done = run([built, "TaskCompleted", str(ep.port), token], {**DONE, "task_subject": "Write the docs"})
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_the_python_bridge_exits_2_with_the_reason_on_a_deny(env: Env, daemon_factory, tmp_path: Path) -> None:
    guarded(env, tmp_path)
    daemon_factory()
    for hook_input in (IDLE, DONE):
        done = run([*HOOKD, "bridge", "claude-code"], hook_input, env.env)
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        assert done.stderr.decode().strip() == REASON
    done = run([*HOOKD, "bridge", "claude-code"], {**IDLE, "teammate_name": "writer"}, env.env)
    assert (done.returncode, done.stdout) == (0, b""), done.stderr


def test_install_puts_a_command_on_those_events_and_an_http_hook_says_it_cannot_block(env: Env, daemon_factory, tmp_path: Path) -> None:
    guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    settings = tmp_path / "settings.json"
    assert env.hookd("bridge", "install", "--all-events", "--settings", str(settings)).returncode == 0
    doc = json.loads(settings.read_text())
    for event in ("TeammateIdle", "TaskCompleted"):
        (group,) = [g for g in doc["hooks"][event] if settings_file.is_ours(g)]
        assert group["hooks"][0]["type"] == "command", group
    # An HTTP hook on TaskCompleted (as an earlier install wrote) cannot exit 2: the user is told, not allowed silently.
    status, body = status_and_body(ep.request(json.dumps(DONE).encode(), "TaskCompleted"))
    assert status == 200
    message = json.loads(body)["systemMessage"]
    assert REASON in message and "exits 2" in message
