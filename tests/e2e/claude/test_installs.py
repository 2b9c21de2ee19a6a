"""What `hookd bridge install` writes puts guards in force in the real Claude Code: with --fail-closed a tool
call is denied while hookd is down or hung, whether the installed Claude Code honours `onFailure` (2.1.295 and
later: an HTTP hook) or not (2.1.197, the last one npm installs on Node 20: the shim, found out by asking the
CLI its version); a project install keeps the secret out of the committed settings and still guards."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ...conftest import Env, write_script
from .harness import CLAUDE, NODE20_CLAUDE, ScriptedModel, require_claude, run_claude, text, tool

pytestmark = pytest.mark.timeout(300)

DENY_TOUCH = """
import json, sys
command = json.load(sys.stdin).get("args", {}).get("command", "")
print(json.dumps({"decision": "deny", "reason": "no touching"}) if "touch" in command else "null")
"""
CLIS = {"2.1.332": CLAUDE, "2.1.197": NODE20_CLAUDE}


def on_path(env: Env, cli: Path) -> None:
    """The CLI where install looks for it (PATH), as a user's shell has it."""
    env.env["PATH"] = f"{cli.parent}:{env.env['PATH']}"


def pre_tool_use(env: Env) -> dict:
    doc = json.loads((env.home / ".claude" / "settings.json").read_text())
    [group] = doc["hooks"]["PreToolUse"]
    return group["hooks"][0]


def denied(session) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.get("tool_input", {}).get("command", "") for d in session.json.get("permission_denials", [])]


@pytest.mark.parametrize("version", sorted(CLIS))
def test_fail_closed_denies_while_hookd_is_down_whatever_the_version(env: Env, daemon_factory, tmp_path: Path, version: str) -> None:
    cli = require_claude(CLIS[version])
    on_path(env, cli)
    r = env.hookd("bridge", "install", "--fail-closed")
    assert r.returncode == 0, r.stderr
    hook = pre_tool_use(env)
    if version == "2.1.332":
        assert hook["type"] == "http" and hook["onFailure"] == "block", hook
    else:
        assert hook["type"] == "command" and "--fail-closed" in hook["command"], hook
        assert "Claude Code 2.1.197" in r.stderr and "ignores onFailure" in r.stderr, r.stderr
    daemon_factory().stop()
    marker = tmp_path / "project" / "ran"
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = run_claude(model, home=env.home, cwd=tmp_path / "project", cli=cli)
    assert not marker.exists()
    assert denied(session) == [f"touch {marker}"]


@pytest.mark.parametrize("version", sorted(CLIS))
def test_fail_closed_denies_while_hookd_hangs(env: Env, daemon_factory, tmp_path: Path, version: str) -> None:
    """A daemon that accepts connections and never answers (stopped): the agent must hear a deny from the hook
    before its own timeout kills it, or it runs the tool."""
    cli = require_claude(CLIS[version])
    on_path(env, cli)
    r = env.hookd("bridge", "install", "--fail-closed", "--timeout", "3")
    assert r.returncode == 0, r.stderr
    daemon = daemon_factory()
    marker = tmp_path / "project" / "ran"
    # Hung from the moment the model asks for the call until its result is back (harness.model in tests/e2e):
    # the hook on the call meets a hung hookd; the session's other events do not each wait out the 3 s.
    hang = {"asking": lambda: daemon.signal(signal.SIGSTOP), "told": lambda: daemon.signal(signal.SIGCONT)}
    try:
        with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")], **hang) as model:
            session = run_claude(model, home=env.home, cwd=tmp_path / "project", cli=cli)
    finally:
        daemon.signal(signal.SIGCONT)
    assert not marker.exists()
    assert denied(session) == [f"touch {marker}"]


def test_a_project_install_keeps_the_secret_out_of_the_committed_settings(env: Env, daemon_factory, tmp_path: Path) -> None:
    require_claude()
    guard = write_script(tmp_path / "deny_touch.py", DENY_TOUCH)
    env.write_global_hooks(f"hooks:\n  - {{name: no-touch, point: tool.approval.pre, type: decision, command: {guard}, enabled: true}}\n")
    daemon_factory()
    project = tmp_path / "project"
    project.mkdir()

    def hookd(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hookd", *args], cwd=project, env=env.env, capture_output=True, text=True, timeout=60)

    r = hookd("bridge", "install", "--project")
    assert r.returncode == 0, r.stderr
    token = (env.state / "hookd" / "http-token").read_text().strip()
    committed = project / ".claude" / "settings.json"
    local = project / ".claude" / "settings.local.json"
    assert token not in committed.read_text() and token in local.read_text()
    marker = project / "ran"
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = run_claude(model, home=env.home, cwd=project)
    # The hooks in the committed file read the secret Claude Code took from the local one: hookd answered.
    assert not marker.exists()
    assert denied(session) == [f"touch {marker}"]
    assert any("no touching" in r for r in model.tool_results())
    assert hookd("bridge", "uninstall", "--project").returncode == 0
    assert list(project.iterdir()) == []  # nothing of hookd's is left in the repository
