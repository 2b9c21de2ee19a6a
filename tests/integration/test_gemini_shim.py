"""Gemini CLI through the compiled shim: `hookd bridge install gemini` writes the shim (``--agent gemini``) for
every installed event, the daemon answers it on /gemini/EVENT in Gemini CLI's format, and whatever the shim
cannot use on a deciding event, or (with --fail-closed) a tool call while hookd is down, is a deny in Gemini
CLI's format. The commands are run exactly as install wrote them, with `sh -c` as Gemini CLI runs them; the
shim is built with the machine's C compiler, the daemon and the guard are real."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import dialect, shim
from hookd.agents.gemini import protocol as gemini

from ..conftest import Env, write_script
from .httphooks import endpoint
from .test_shim_cannot_handle import Impostor

GUARD = """
import json, os, sys
p = json.load(sys.stdin)
cmd = p.get("args", {}).get("command", "")
with open(sys.argv[1], "a") as f:
    f.write(json.dumps({"agent": p.get("agent"), "tool": p.get("toolName"), "project": os.environ.get("HOOKD_PROJECT_DIR")}) + "\\n")
if "rm -rf" in cmd:
    print(json.dumps({"decision": "deny", "reason": "no recursive force delete"}))
elif cmd.startswith("echo original"):
    print(json.dumps({"decision": "allow", "modifiedInput": dict(p["args"], command="echo rewritten")}))
else:
    print("null")
"""


@pytest.fixture(autouse=True)
def compiler() -> None:
    if shim.compiler() is None:
        pytest.skip("no C compiler on this machine: the Python bridge is installed instead")


def before_tool(project: Path, command: str, event: str = "BeforeTool") -> dict[str, Any]:
    return {
        "session_id": "s-gemini-shim",
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-12-01T09:12:04.745Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "d"},
    }


def installed(settings: Path) -> dict[str, str]:
    """Each event's hookd command, as install wrote it."""
    doc = json.loads(settings.read_text())
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in doc["hooks"].items()}


def run(command: str, data: dict[str, Any], env: Env, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as Gemini CLI runs a command hook: through a shell, the input on stdin, GEMINI_PROJECT_DIR set."""
    environ = dict(env.env, GEMINI_PROJECT_DIR=str(cwd), GEMINI_SESSION_ID=data["session_id"])
    return subprocess.run(["sh", "-c", command], input=json.dumps(data), env=environ, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_install_writes_the_shim_for_every_event_and_uninstall_restores_the_file(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    original = '{\n  "ui": {"theme": "Default"}\n}\n'
    settings.write_text(original)
    r = env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--timeout", "30")
    assert r.returncode == 0, r.stderr
    commands = installed(settings)
    assert set(commands) == set(gemini.INSTALLED_EVENTS)
    for event, command in commands.items():
        words = shlex.split(command)
        assert Path(words[0]).name == shim.NAME and words[1] == event, command
        assert words[-2:] == ["--agent", "gemini"] and "--timeout 28" in command, command
    assert "bridge gemini" not in r.stdout and "--agent gemini" in r.stdout
    gone = env.hookd("bridge", "uninstall", "gemini", "--settings", str(settings))
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == original
    # --no-shim keeps the Python bridge, and uninstall still finds it.
    r = env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--no-shim")
    assert r.returncode == 0, r.stderr
    assert all(" bridge gemini --timeout 588 --event " in c for c in installed(settings).values())
    assert env.hookd("bridge", "uninstall", "gemini", "--settings", str(settings)).returncode == 0
    assert settings.read_text() == original


def test_the_installed_shim_is_answered_in_gemini_clis_format(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    guard = write_script(tmp_path / "guard.py", GUARD)
    env.write_global_hooks(
        f"hooks:\n  - name: g\n    point: tool.approval.pre\n    type: decision\n    command: {guard}\n    args: [{str(seen)!r}]\n"
        "    enabled: true\n"
    )
    daemon_factory()
    settings = tmp_path / "settings.json"
    assert env.hookd("bridge", "install", "gemini", "--settings", str(settings)).returncode == 0
    commands = installed(settings)
    assert Path(shlex.split(commands["BeforeTool"])[0]).name == shim.NAME, commands
    project = tmp_path / "project"
    project.mkdir()
    r = run(commands["BeforeTool"], before_tool(project, "rm -rf /"), env, project)
    assert r.returncode == 0 and json.loads(r.stdout) == {"decision": "deny", "reason": "no recursive force delete"}, r.stderr
    r = run(commands["BeforeTool"], before_tool(project, "echo original"), env, project)
    assert json.loads(r.stdout) == {
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "echo rewritten", "description": "d"}}
    }, r.stderr
    # Nothing to say is still an object: Gemini CLI would read the shim's stderr from an empty stdout.
    r = run(commands["BeforeTool"], before_tool(project, "ls"), env, project)
    assert r.returncode == 0 and json.loads(r.stdout) == {}, r.stderr
    r = run(commands["AfterTool"], before_tool(project, "ls", "AfterTool"), env, project)
    assert r.returncode == 0 and json.loads(r.stdout) == {}, r.stderr
    rows = [json.loads(line) for line in seen.read_text().splitlines()]
    assert rows[0] == {"agent": "gemini", "tool": "execute_command", "project": str(project)}


def test_with_hookd_down_a_tool_call_proceeds_or_with_fail_closed_is_denied_in_gemini_clis_format(
    env: Env, daemon_factory, tmp_path: Path
) -> None:
    d = daemon_factory()
    endpoint(d)
    d.stop()
    settings = tmp_path / "settings.json"
    assert env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--timeout", "20").returncode == 0
    r = run(installed(settings)["BeforeTool"], before_tool(tmp_path, "ls"), env, tmp_path)
    assert r.returncode == 0 and r.stdout == "" and "the agent proceeds" in r.stderr, r
    assert env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--timeout", "20", "--fail-closed").returncode == 0
    commands = installed(settings)
    r = run(commands["BeforeTool"], before_tool(tmp_path, "ls"), env, tmp_path)
    out = json.loads(r.stdout)
    assert set(out) == {"decision", "reason"} and out["decision"] == "deny", r
    assert out["reason"].startswith("hookd could not be asked (hookd is not answering on 127.0.0.1:") and "--fail-closed" in out["reason"]
    # Only tool calls are denied: the rest proceeds.
    r = run(commands["AfterTool"], before_tool(tmp_path, "ls", "AfterTool"), env, tmp_path)
    assert r.returncode == 0 and r.stdout == "" and "the agent proceeds" in r.stderr, r


def test_an_answer_the_shim_cannot_use_denies_every_deciding_gemini_event(tmp_path: Path) -> None:
    built = shim.build(tmp_path / "shim")
    assert built.path is not None, built.why
    token = tmp_path / "token"
    token.write_text("s" * 43)
    token.chmod(0o600)
    server = Impostor(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\nconnection: close\r\n\r\noops")
    try:
        for event, (_, decides) in gemini.ROUTES.items():
            argv = [built.path, event, str(server.port), str(token), "--agent", "gemini"]
            done = subprocess.run(argv, input=json.dumps({"hook_event_name": event}).encode(), capture_output=True, timeout=60)
            assert done.returncode == 0, (event, done.stderr)
            if not decides:
                assert done.stdout == b"" and b"the agent proceeds" in done.stderr, (event, done)
                continue
            reason = f"hookd: hookd refused {event} (HTTP 500: oops); hookd is running but its answer cannot be used, so {event} is denied"
            expected = dialect.render(gemini.DIALECT, event, dialect.Verdict("deny", reason))
            assert json.loads(done.stdout) == expected, event
            if event in gemini.BLOCKING:
                assert expected == {"decision": "deny", "reason": reason}
    finally:
        server.sock.close()


def test_all_events_adds_the_events_fired_on_every_model_request(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    assert env.hookd("bridge", "install", "gemini", "--settings", str(settings)).returncode == 0
    assert not {"BeforeModel", "BeforeToolSelection", "AfterModel"} & set(installed(settings))
    r = env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--all-events")
    assert r.returncode == 0, r.stderr
    assert set(installed(settings)) == set(gemini.ALL_EVENTS)
    doc = json.loads(settings.read_text())
    assert all(len(groups) == 1 for groups in doc["hooks"].values()), "reinstalling replaces hookd's groups"
    assert env.hookd("bridge", "uninstall", "gemini", "--settings", str(settings)).returncode == 0
    assert not settings.exists()
