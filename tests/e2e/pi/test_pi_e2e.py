"""pi end to end: the real CLI, offline, against a scripted Chat Completions server, with hookd's extension.

pi (`@mariozechner/pi-coding-agent`, pinned in package.json here; `make e2e-deps` installs it) runs as
`PI_OFFLINE=1 pi --offline -p --model mock/m --no-session PROMPT`, its provider in the test HOME's
`.pi/agent/models.json` pointing at the scripted model (model_server.py) on 127.0.0.1. The extension is what `hookd bridge install pi` of
the non-editable hookd (tests/e2e/installed.py) writes into `~/.pi/agent/extensions/`; pi loads it as it loads any
extension. One pi run per check.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DaemonProcess, Env
from tests.e2e.guards import install_guards, install_readme_guard
from tests.e2e.harness import Run, blocked, decides, denied, guarded_by_node, journal, model, precious, rewritten, run_agent
from tests.e2e.scripted import on_path
from tests.e2e.session_guard import node_session_guard

from .conftest import install_pi
from .model_server import WIRE, shell

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
PI = BIN / "pi"

pytestmark = [pytest.mark.timeout(600)]


def pi_available() -> str | None:
    """Why pi cannot run here, or None."""
    if not PI.exists():
        return f"{PI} is missing: run `make e2e-deps` (npm ci in tests/e2e/pi)"
    done = subprocess.run([str(PI), "--version"], capture_output=True, text=True, timeout=120, env={**os.environ, "PI_OFFLINE": "1"})
    if done.returncode != 0:
        return f"pi does not run here: {(done.stderr or done.stdout).strip()[-300:]}"
    return None


@pytest.fixture(scope="session")
def pi_runs() -> None:
    why = pi_available()
    if why is not None:
        pytest.skip(f"SKIPPED LOUDLY: the pi end-to-end suite cannot run: {why}")


@dataclass
class Pi:
    env: Env
    daemon: DaemonProcess
    project: Path

    def run(self, command: str, ready_file: Path | None = None, hang: DaemonProcess | None = None) -> Run:
        """One `pi -p` whose model runs ``command``; with ``ready_file``, only once that file exists; with
        ``hang``, the daemon hangs while pi asks about the call (harness.model)."""
        with model(WIRE, shell(command), ready_file, hang) as scripted:
            provider = {
                "baseUrl": f"{scripted.url}/v1",
                "api": "openai-completions",
                "apiKey": "x",
                "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                "models": [{"id": "m"}],
            }
            agent_dir = self.env.home / ".pi" / "agent"
            agent_dir.mkdir(parents=True, exist_ok=True)
            (agent_dir / "models.json").write_text(json.dumps({"providers": {"mock": provider}}))
            argv = [PI, "--offline", "-p", "--model", "mock/m", "--no-session", "Run the command."]
            return run_agent(argv, scripted, self.project, self.env.env, timeout=300)

    def install(self, *args: str) -> None:
        done = self.env.hookd("bridge", "install", "pi", *args, timeout=120)
        assert done.returncode == 0, done.stderr


@pytest.fixture
def pi(env: Env, daemon_factory, tmp_path: Path, pi_runs: None, pi_install: Path) -> Iterator[Pi]:  # type: ignore[no-untyped-def]
    # The guards every agent's suite runs, on tool.approval.pre, and beside them the README's guard as written.
    install_guards(env, tmp_path / "guards")
    install_readme_guard(env)
    agent = Pi(env, daemon_factory(), tmp_path / "project")
    # pi (and doctor's canary, which loads the extension through pi's loader) found on PATH, as a user has it.
    env.env.update(PATH=on_path(BIN, env.env), PI_OFFLINE="1")
    install_pi(env, pi_install)  # what `hookd bridge install pi` writes (conftest.py)
    agent.project.mkdir()
    yield agent


def test_the_readme_guard_stops_rm_rf_in_pi(pi: Pi) -> None:
    env = pi.env
    victim = precious(pi.project)
    result = pi.run(f"rm -rf {victim}")
    call = denied(env, result, victim, agent="pi", tool="bash", reason="'rm -rf' is blocked", by="block-dangerous-commands")
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["project"] == str(pi.project)
    session = call["session"]
    assert session
    # The session's other events went to hookd, in pi's session: attached, prompted, the blocked call told.
    [start] = decides(env, "--session", session, point="agent.turn.start")
    assert start["payload"] == {"reason": "startup", "agent": "pi"}
    [prompt] = decides(env, "--session", session, point="chat.message")
    assert prompt["payload"]["prompt"] == "Run the command."
    [denial] = journal(env, "tool.execute.denied", "--session", session)
    assert denial["payload"]["toolName"] == "execute_command" and "'rm -rf' is blocked" in denial["payload"]["reason"]
    assert [e["payload"]["reason"] for e in journal(env, "chat.finished", "--session", session)] == ["quit"]


def test_an_allow_rewrites_the_command(pi: Pi) -> None:
    out = pi.project / "out.txt"
    rewritten(pi.env, pi.run(f"echo original > {out}"), out)
    # tool.execute.after saw the command pi ran: the rewritten one.
    [after] = decides(pi.env, point="tool.execute.after")
    assert after["payload"]["args"]["command"] == f"echo rewritten > {out}" and after["payload"]["agentToolName"] == "bash"


def test_with_hookd_down_a_tool_call_is_blocked_naming_why(pi: Pi) -> None:
    pi.daemon.stop()
    marker = pi.project / "touched"
    result = pi.run(f"touch {marker}")
    blocked(result, marker, "Blocked by hookd: tool.approval.pre not checked", "hookd is not running")
    # One line for the user, not one per event.
    assert result.output.count("hookd is not running") == 1, result.output


def test_with_hookd_hung_a_tool_call_is_blocked_after_the_timeout(pi: Pi) -> None:
    pi.install("--bridge-args=--timeout 2")
    marker = pi.project / "touched"
    try:
        result = pi.run(f"touch {marker}", hang=pi.daemon)  # it accepts connections and never answers
    finally:
        pi.daemon.signal(signal.SIGCONT)
    blocked(result, marker, "not checked: no answer within 2 s")


def test_fail_open_lets_pi_run_the_tool_when_hookd_is_down(pi: Pi) -> None:
    pi.install("--bridge-args=--fail-open")
    pi.daemon.stop()
    marker = pi.project / "touched"
    result = pi.run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert marker.exists()
    assert "pi runs tool calls unguarded (--fail-open)" in result.output


def test_a_session_hook_attached_by_a_node_program(pi: Pi, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    marker = pi.project / "touched"
    with node_session_guard(pi.env.env, ready, "tool.approval.pre") as guard:
        result = pi.run(f"touch {marker}", ready_file=ready)
        guarded_by_node(pi.env, result, marker, ready, guard)


def test_doctor_sends_a_canary_through_the_extension(pi: Pi) -> None:
    env = pi.env
    status = env.hookd("bridge", "status", "--check", "--json", timeout=180)
    report = json.loads(status.stdout)
    [row] = [r for r in report["agents"] if r["agent"] == "pi"]
    assert row["fail_closed"] and row["how"] == [f"extension {row['path']}"] and not row["problems"], row
    [check] = [c for c in report["checks"] if c["name"] == "pi" and "canary" in c["message"]]
    assert check["status"] == "ok" and "'block-dangerous-commands'" in check["message"], check
    [canary] = [e for e in decides(env) if e["session"].startswith("hookd-canary-")]
    assert canary["payload"]["agent"] == "pi" and canary["payload"]["toolName"] == "execute_command"
    pi.daemon.stop()
    down = env.hookd("bridge", "status", "--check", "--json", timeout=180)
    [check] = [c for c in json.loads(down.stdout)["checks"] if c["name"] == "pi" and "hookd does not answer" in c["message"]]
    assert check["status"] == "warn" and "pi refuses tool calls until it does" in check["message"], check
