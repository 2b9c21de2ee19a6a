"""The real Claude Code CLI, offline, with a session hook that a separate Node program attaches to its session
through hookd-client: the program serves the decision from its own function, and the command never runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ...conftest import Env
from ..session_guard import REASON, node_session_guard
from .harness import ScriptedModel, require_claude, run_claude, text, tool

pytestmark = pytest.mark.timeout(300)


def test_a_session_hook_attached_by_a_node_program(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    require_claude()
    daemon_factory()
    # Claude Code reads its hooks once, when the session starts, and no hook is on tool.approval.pre yet:
    # every event stays installed so that the hook attached during the session is asked.
    installed = env.hookd("bridge", "install", "--all-events")
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    ready = tmp_path / "ready"
    marker = project / "touched"
    steps = [tool("Bash", {"command": f"touch {marker}"}), text("done")]
    # The Node program attaches to the Claude Code session at its first chat.message (UserPromptSubmit).
    with node_session_guard(env.env, ready, "tool.approval.pre") as guard, ScriptedModel(steps, ready_file=ready) as model:
        session = run_claude(model, home=env.home, cwd=project, args=("--allowedTools", "Bash"))
    assert ready.exists(), "the Node program never attached its session hook"
    assert not marker.exists()
    denied = [d.get("tool_input", {}).get("command") for d in session.json.get("permission_denials", [])]
    assert denied == [f"touch {marker}"], session.json
    assert any(REASON in r for r in model.tool_results()), model.tool_results()
    session_id = session.json["session_id"]
    assert ready.read_text() == session_id
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre")
    assert tail.returncode == 0, tail.stderr
    [call] = [e for e in map(json.loads, tail.stdout.splitlines()) if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["session"] == session_id
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard.pid}"
    assert call["payload"]["args"]["command"] == f"touch {marker}"
