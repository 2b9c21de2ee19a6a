"""Gemini CLI end to end: the real CLI, offline, against a scripted Gemini API, through `hookd bridge install gemini`
(the compiled shim, one loopback request to the daemon's /gemini/ endpoint per event).

A test HOME whose .gemini/settings.json picks API-key auth and turns folder trust off, GOOGLE_GEMINI_BASE_URL on
127.0.0.1 and any GEMINI_API_KEY make `gemini -p PROMPT --yolo` run a whole session against the scripted model
(model_server.py). The bridge is installed into that settings file by hookd itself; a real daemon runs real YAML
guards.
"""

from __future__ import annotations

import json
import shlex
import shutil
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
GEMINI = HERE / "node_modules" / ".bin" / "gemini"
SETTINGS = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}}, indent=2) + "\n"

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@dataclass
class Gemini:
    env: Env
    daemon: DaemonProcess
    project: Path
    settings: Path

    def run(self, command: str, ready_file: Path | None = None) -> Run:
        """One `gemini -p` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        with model(WIRE, shell(command), ready_file) as scripted:
            agent_env = dict(self.env.env, GOOGLE_GEMINI_BASE_URL=scripted.url, GEMINI_API_KEY="unused")
            # Gemini CLI otherwise starts itself twice: a first process that only relaunches the CLI with V8 heap
            # flags. The relaunched process is the one that runs hooks, and it sees the same environment.
            agent_env["GEMINI_CLI_NO_RELAUNCH"] = "true"
            return run_agent([GEMINI, "-p", "Run the command.", "--yolo"], scripted, self.project, agent_env)


@pytest.fixture
def gemini(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Gemini]:  # type: ignore[no-untyped-def]
    require(GEMINI, skip=False)  # node_modules missing is a failure here: run `make e2e-deps`
    install_guards(env, tmp_path / "guards")
    agent = Gemini(env, daemon_factory(), tmp_path / "project", env.home / ".gemini" / "settings.json")
    agent.settings.parent.mkdir(parents=True)
    agent.settings.write_text(SETTINGS)
    installed = env.hookd("bridge", "install", "gemini")  # the default command: this hookd, by absolute path
    assert installed.returncode == 0, installed.stderr
    agent.project.mkdir()
    yield agent


def test_a_global_guard_stops_rm_rf_in_gemini_cli(gemini: Gemini) -> None:
    victim = precious(gemini.project)
    call = denied(gemini.env, gemini.run(f"rm -rf {victim}"), victim, agent="gemini", tool="run_shell_command")
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "BeforeTool"
    session = call["session"]
    assert session and call["project"] == str(gemini.project)
    # The session's other events reached hookd under the same session: SessionStart attached it.
    assert journal(gemini.env, "agent.turn.start", "--session", session)[0]["payload"]["source"] == "startup"


def test_an_allow_rewrites_the_command_in_gemini_cli(gemini: Gemini) -> None:
    out = gemini.project / "out.txt"
    rewritten(gemini.env, gemini.run(f"echo original > {out}"), out)


def test_uninstall_restores_the_settings_byte_for_byte(gemini: Gemini) -> None:
    doc = json.loads(gemini.settings.read_text())
    assert set(doc["hooks"]) >= {"BeforeTool", "AfterTool", "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent"}
    [group] = doc["hooks"]["BeforeTool"]
    # Gemini CLI waits 600 000 ms; the shim gives up at 588 s, so Gemini CLI hears its answer.
    assert group["matcher"] == "*" and group["hooks"][0]["timeout"] == 600_000
    words = shlex.split(group["hooks"][0]["command"])
    assert Path(words[0]).name == "claude-shim" and words[1] == "BeforeTool", words
    assert words[-4:] == ["--timeout", "588", "--agent", "gemini"], words
    gone = gemini.env.hookd("bridge", "uninstall", "gemini")
    assert gone.returncode == 0, gone.stderr
    assert gemini.settings.read_text() == SETTINGS


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(gemini: Gemini) -> None:
    again = gemini.env.hookd("bridge", "install", "gemini", "--fail-closed", "--timeout", "20")
    assert again.returncode == 0, again.stderr
    gemini.daemon.stop()
    marker = gemini.project / "marker"
    blocked(gemini.run(f"touch {marker}"), marker, "hookd could not be asked", "--fail-closed")


def test_a_session_hook_attached_by_a_node_program(gemini: Gemini, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    marker = gemini.project / "touched"
    # The Node program attaches to the Gemini CLI session at its first chat.message (BeforeAgent).
    with node_session_guard(gemini.env.env, ready, "tool.approval.pre") as guard:
        result = gemini.run(f"touch {marker}", ready_file=ready)
    call = guarded_by_node(gemini.env, result, marker, ready, guard)
    assert call["payload"]["args"]["command"] == f"touch {marker}"
