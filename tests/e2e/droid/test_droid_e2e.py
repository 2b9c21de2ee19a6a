"""Factory Droid end to end: the real CLI, offline, against a scripted Chat Completions API, through `hookd bridge install droid`.

`droid exec --skip-permissions-unsafe -m custom:mock-0 PROMPT` runs a whole session against the scripted model
(model_server.py) with no sign-in: the custom model (`generic-chat-completion-api` on 127.0.0.1) comes from a
runtime settings file given with `--settings`, so that ~/.factory/settings.json holds only what `hookd bridge
install droid` wrote there (the compiled shim, `--agent droid`, on every event Droid fires). A real daemon runs
the real YAML guards.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DaemonProcess, Env
from tests.e2e.guards import install_guards
from tests.e2e.harness import Run, blocked, denied, guarded_by_node, journal, model, precious, require, rewritten, run_agent
from tests.e2e.session_guard import node_session_guard

from .model_server import WIRE, shell

HERE = Path(__file__).resolve().parent
DROID = HERE / "node_modules" / ".bin" / "droid"
SETTINGS = json.dumps({"model": "custom:mock-0", "cloudSessionSync": False}, indent=2) + "\n"


def _droid_runs() -> str | None:
    """Why the droid CLI cannot run here (None: it can): npm may have left its platform build out."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not DROID.exists():
        return None  # the fixture says to run `make e2e-deps`
    try:
        done = subprocess.run([str(DROID), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the droid CLI does not start here: {exc}"
    return None if done.returncode == 0 else f"the droid CLI does not start here: {(done.stdout + done.stderr).strip()[:300]}"


WHY_NOT = _droid_runs()
pytestmark = [pytest.mark.timeout(600), pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")]


@dataclass
class Droid:
    env: Env
    daemon: DaemonProcess
    project: Path
    settings: Path
    tmp: Path

    def run(self, command: str, ready_file: Path | None = None) -> Run:
        """One `droid exec` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        with model(WIRE, shell(command), ready_file) as scripted:
            custom = {"model": "m", "displayName": "mock", "baseUrl": f"{scripted.url}/v1", "apiKey": "unused"}
            custom.update(provider="generic-chat-completion-api", maxOutputTokens=4096)
            runtime = self.tmp / "runtime.json"
            runtime.write_text(json.dumps({"customModels": [custom]}))
            argv = [DROID, "exec", "--skip-permissions-unsafe", "-m", "custom:mock-0", "--settings", runtime, "Run the command."]
            return run_agent(argv, scripted, self.project, self.env.env)


@pytest.fixture
def droid(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Droid]:  # type: ignore[no-untyped-def]
    require(DROID, skip=False)  # node_modules missing is a failure here: run `make e2e-deps`
    install_guards(env, tmp_path / "guards")
    agent = Droid(env, daemon_factory(), tmp_path / "project", env.home / ".factory" / "settings.json", tmp_path)
    agent.settings.parent.mkdir(parents=True)
    agent.settings.write_text(SETTINGS)
    installed = env.hookd("bridge", "install", "droid")  # the shim, built with the machine's C compiler
    assert installed.returncode == 0, installed.stderr
    agent.project.mkdir()
    yield agent


def test_a_global_guard_stops_rm_rf_in_droid(droid: Droid) -> None:
    victim = precious(droid.project)
    call = denied(droid.env, droid.run(f"rm -rf {victim}"), victim, agent="droid", tool="Execute")
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    session = call["session"]
    assert session and call["project"] == str(droid.project)
    # The session's other events reached hookd under the same session, naming Droid: SessionStart attached it.
    first = journal(droid.env, "agent.turn.start", "--session", session)[0]
    assert first["payload"]["source"] == "startup" and first["payload"]["agent"] == "droid", first


def test_an_allow_rewrites_the_command_in_droid(droid: Droid) -> None:
    out = droid.project / "out.txt"
    rewritten(droid.env, droid.run(f"echo original > {out}"), out)


def test_uninstall_restores_the_settings_byte_for_byte(droid: Droid) -> None:
    doc = json.loads(droid.settings.read_text())
    assert set(doc["hooks"]) == {
        "PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd",
    }  # fmt: skip
    [group] = doc["hooks"]["PreToolUse"]
    words = shlex.split(group["hooks"][0]["command"])
    assert Path(words[0]).name == "claude-shim" and words[1] == "PreToolUse" and words[-2:] == ["--agent", "droid"], words
    # Droid waits 600 s; the shim gives up at 588 s, so Droid hears its answer.
    assert group["hooks"][0]["timeout"] == 600 and "--timeout 588" in group["hooks"][0]["command"]
    gone = droid.env.hookd("bridge", "uninstall", "droid")
    assert gone.returncode == 0, gone.stderr
    assert droid.settings.read_text() == SETTINGS


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(droid: Droid) -> None:
    again = droid.env.hookd("bridge", "install", "droid", "--fail-closed", "--timeout", "20")
    assert again.returncode == 0, again.stderr
    droid.daemon.stop()
    marker = droid.project / "marker"
    blocked(droid.run(f"touch {marker}"), marker, "hookd could not be asked", "--fail-closed")


def test_a_session_hook_attached_by_a_node_program(droid: Droid, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    marker = droid.project / "touched"
    # `droid exec` sends no UserPromptSubmit: the Node program attaches at the session's start (SessionStart).
    with node_session_guard(droid.env.env, ready, "tool.approval.pre", start="agent.turn.start") as guard:
        result = droid.run(f"touch {marker}", ready_file=ready)
    call = guarded_by_node(droid.env, result, marker, ready, guard)
    assert call["payload"]["args"]["command"] == f"touch {marker}"
