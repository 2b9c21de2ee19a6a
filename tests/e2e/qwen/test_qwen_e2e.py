"""Qwen Code end to end: the real CLI, offline, against a scripted Chat Completions API, through `hookd bridge install qwen`.

A test HOME whose .qwen/settings.json picks the OpenAI-compatible auth and turns folder trust off, and
OPENAI_BASE_URL on 127.0.0.1 with any OPENAI_API_KEY and OPENAI_MODEL make `qwen -p PROMPT --yolo` run a whole
session against the scripted model (model_server.py). The bridge (HTTP hooks to the daemon's endpoint, no process
per event) is installed into that settings file by hookd itself; a real daemon runs real YAML guards.
"""

from __future__ import annotations

import json
import shutil
import signal
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
QWEN = HERE / "node_modules" / ".bin" / "qwen"
SETTINGS = json.dumps({"security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}}}, indent=2) + "\n"

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@dataclass
class Qwen:
    env: Env
    daemon: DaemonProcess
    project: Path
    settings: Path

    def run(self, command: str, ready_file: Path | None = None, hang: DaemonProcess | None = None) -> Run:
        """One `qwen -p` whose model runs ``command``; with ``ready_file``, only once that file exists; with
        ``hang``, the daemon hangs while the agent asks about the call (harness.model)."""
        with model(WIRE, shell(command), ready_file, hang) as scripted:
            agent_env = dict(self.env.env, OPENAI_BASE_URL=f"{scripted.url}/v1", OPENAI_API_KEY="unused", OPENAI_MODEL="m")
            agent_env["QWEN_CODE_SUPPRESS_YOLO_WARNING"] = "1"
            # Qwen Code otherwise starts itself twice: a first process that only relaunches the CLI with a
            # larger heap. The relaunched process is the one that runs hooks, and it sees the same environment.
            agent_env["QWEN_CODE_NO_RELAUNCH"] = "true"
            return run_agent([QWEN, "-p", "Run the command.", "--yolo"], scripted, self.project, agent_env)

    def install(self, *args: str) -> None:
        done = self.env.hookd("bridge", "install", "qwen", *args)
        assert done.returncode == 0, done.stderr


@pytest.fixture
def qwen(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Qwen]:  # type: ignore[no-untyped-def]
    require(QWEN, skip=False)  # node_modules missing is a failure here: run `make e2e-deps`
    install_guards(env, tmp_path / "guards")
    settings = env.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(SETTINGS)
    agent = Qwen(env, daemon_factory(), tmp_path / "project", settings)
    agent.project.mkdir()
    agent.install()
    yield agent


def test_a_global_guard_stops_rm_rf_in_qwen_code(qwen: Qwen) -> None:
    victim = precious(qwen.project)
    result = qwen.run(f"rm -rf {victim}")
    call = denied(qwen.env, result, victim, agent="qwen", tool="run_shell_command")
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    session = call["session"]
    assert session and call["project"] == str(qwen.project)
    # The session's other events reached hookd under the same session: SessionStart attached it.
    assert journal(qwen.env, "agent.turn.start", "--session", session)[0]["payload"]["source"] == "startup"


def test_qwen_code_runs_the_original_command_when_an_allow_rewrites_it(qwen: Qwen) -> None:
    """Qwen Code 0.24 documents PreToolUse's `updatedInput` but does not apply it: its firePreToolUseHook reads
    only deny, ask, `continue: false` and additionalContext. hookd's answer carries the rewrite; the agent runs
    the model's command. When Qwen Code starts applying it, this test fails and docs/bridges.md must change."""
    out = qwen.project / "out.txt"
    rewritten(qwen.env, qwen.run(f"echo original > {out}"), out, ran="original\n")


def test_uninstall_restores_the_settings_byte_for_byte(qwen: Qwen) -> None:
    doc = json.loads(qwen.settings.read_text())
    assert set(doc["hooks"]) >= {"PreToolUse", "PostToolUse", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"}
    [group] = doc["hooks"]["PreToolUse"]
    assert group["hooks"][0]["type"] == "http" and group["hooks"][0]["timeout"] == 600
    assert (qwen.settings.stat().st_mode & 0o777) == 0o600, "the file holds the endpoint's secret"
    gone = qwen.env.hookd("bridge", "uninstall", "qwen")
    assert gone.returncode == 0, gone.stderr
    assert qwen.settings.read_text() == SETTINGS


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(qwen: Qwen) -> None:
    qwen.install("--fail-closed", "--timeout", "20")
    qwen.daemon.stop()
    marker = qwen.project / "marker"
    told = blocked(qwen.run(f"touch {marker}"), marker, "--fail-closed")
    # The shim words it "not answering on 127.0.0.1:PORT"; without a C compiler the Python bridge runs instead.
    assert "hookd is not answering" in told or "hookd is not running" in told, told


def test_a_session_hook_attached_by_a_node_program(qwen: Qwen, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    marker = qwen.project / "touched"
    # The Node program attaches to the Qwen Code session at its first chat.message (UserPromptSubmit).
    with node_session_guard(qwen.env.env, ready, "tool.approval.pre") as guard:
        result = qwen.run(f"touch {marker}", ready_file=ready)
    call = guarded_by_node(qwen.env, result, marker, ready, guard)
    assert call["payload"]["args"]["command"] == f"touch {marker}"


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_hangs(qwen: Qwen) -> None:
    """A daemon that accepts connections and never answers (stopped): the shim must give up and deny before
    Qwen Code's own timeout kills it, or Qwen Code runs the tool."""
    qwen.install("--fail-closed", "--timeout", "3")
    marker = qwen.project / "marker"
    try:
        result = qwen.run(f"touch {marker}", hang=qwen.daemon)
    finally:
        qwen.daemon.signal(signal.SIGCONT)
    blocked(result, marker, "--fail-closed")
