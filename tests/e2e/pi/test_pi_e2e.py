"""pi end to end: the real CLI, offline, against a scripted Chat Completions server, with hookd's extension.

pi (`@mariozechner/pi-coding-agent`, pinned in package.json here; `make e2e-deps` installs it) runs as
`PI_OFFLINE=1 pi --offline -p --model mock/m --no-session PROMPT`, its provider in the test HOME's
`.pi/agent/models.json` pointing at model_server.py on 127.0.0.1. The extension is what `hookd bridge install pi` of
the non-editable hookd (tests/e2e/installed.py) writes into `~/.pi/agent/extensions/`; pi loads it as it loads any
extension. One pi run per check.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DaemonProcess, Env
from tests.docs.test_samples import readme_hooks_file
from tests.e2e.guards import install_guards
from tests.e2e.session_guard import REASON, node_session_guard

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
PI = BIN / "pi"

pytestmark = [pytest.mark.timeout(600)]


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict]

    def tool_results(self) -> list[str]:
        """What pi told the model about its tool call (the tool messages of later requests)."""
        out = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if m.get("role") == "tool":
                    content = m.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return out


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


@pytest.fixture
def pi(env: Env, daemon_factory, tmp_path: Path, pi_runs: None) -> Iterator:  # type: ignore[no-untyped-def]
    # The guards every agent's suite runs, on tool.approval.pre, and beside them the README's guard as written.
    install_guards(env, tmp_path / "guards")
    readme = env.config / "hookd" / "hooks.d" / "readme.yaml"
    readme.parent.mkdir(parents=True)
    readme.write_text(readme_hooks_file())
    daemon: DaemonProcess = daemon_factory()
    # pi (and doctor's canary, which loads the extension through pi's loader) found on PATH, as a user has it.
    env.env.update(PATH=f"{BIN}{os.pathsep}{env.env.get('PATH', os.environ.get('PATH', ''))}", PI_OFFLINE="1")
    installed = env.hookd("bridge", "install", "pi", timeout=120)
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(command: str, ready_file: Path | None = None) -> Run:
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        argv = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*argv, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        provider = {
            "baseUrl": f"http://127.0.0.1:{port_file.read_text()}/v1",
            "api": "openai-completions",
            "apiKey": "x",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "m"}],
        }
        agent_dir = env.home / ".pi" / "agent"
        agent_dir.mkdir(parents=True, exist_ok=True)
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"mock": provider}}))
        done = subprocess.run(
            [str(PI), "--offline", "-p", "--model", "mock/m", "--no-session", "Run the command."],
            cwd=project,
            env=env.env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        requests = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        return Run(done.returncode, done.stdout + done.stderr, requests)

    yield env, daemon, project, run
    for s in servers:
        s.kill()
        s.wait()


def events(env: Env, point: str, *extra: str) -> list[dict]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", point, *extra)
    assert tail.returncode == 0, tail.stderr
    return [json.loads(line) for line in tail.stdout.splitlines()]


def decides(env: Env, *extra: str, point: str = "tool.approval.pre") -> list[dict]:
    return [e for e in events(env, point, *extra) if e.get("kind") == "decide"]


def test_the_readme_guard_stops_rm_rf_in_pi(pi) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = pi
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}")
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    told = result.tool_results()
    assert told and "'rm -rf' is blocked" in told[0], (told, result.output)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "block-dangerous-commands"
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "bash"
    assert call["payload"]["agent"] == "pi" and call["project"] == str(project)
    session = call["session"]
    assert session and session == call["session"]
    # The session's other events went to hookd, in pi's session: attached, prompted, the blocked call told.
    [start] = decides(env, "--session", session, point="agent.turn.start")
    assert start["payload"] == {"reason": "startup", "agent": "pi"}
    [prompt] = decides(env, "--session", session, point="chat.message")
    assert prompt["payload"]["prompt"] == "Run the command."
    [denied] = events(env, "tool.execute.denied", "--session", session)
    assert denied["payload"]["toolName"] == "execute_command" and "'rm -rf' is blocked" in denied["payload"]["reason"]
    assert [e["payload"]["reason"] for e in events(env, "chat.finished", "--session", session)] == ["quit"]


def test_an_allow_rewrites_the_command(pi) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = pi
    out = project / "out.txt"
    result = run(f"echo original > {out}")
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n"
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    # tool.execute.after saw the command pi ran: the rewritten one.
    [after] = decides(env, point="tool.execute.after")
    assert after["payload"]["args"]["command"] == f"echo rewritten > {out}" and after["payload"]["agentToolName"] == "bash"


def test_with_hookd_down_a_tool_call_is_blocked_naming_why(pi) -> None:  # type: ignore[no-untyped-def]
    _env, daemon, project, run = pi
    daemon.stop()
    marker = project / "touched"
    result = run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "Blocked by hookd: tool.approval.pre not checked" in told[0] and "hookd is not running" in told[0], told
    # One line for the user, not one per event.
    assert result.output.count("hookd is not running") == 1, result.output


def test_with_hookd_hung_a_tool_call_is_blocked_after_the_timeout(pi) -> None:  # type: ignore[no-untyped-def]
    env, daemon, project, run = pi
    again = env.hookd("bridge", "install", "pi", "--bridge-args=--timeout 2", timeout=120)
    assert again.returncode == 0, again.stderr
    daemon.signal(signal.SIGSTOP)  # it accepts connections and never answers
    try:
        marker = project / "touched"
        result = run(f"touch {marker}")
    finally:
        daemon.signal(signal.SIGCONT)
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "not checked: no answer within 2 s" in told[0], told


def test_fail_open_lets_pi_run_the_tool_when_hookd_is_down(pi) -> None:  # type: ignore[no-untyped-def]
    env, daemon, project, run = pi
    again = env.hookd("bridge", "install", "pi", "--bridge-args=--fail-open", timeout=120)
    assert again.returncode == 0, again.stderr
    daemon.stop()
    marker = project / "touched"
    result = run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert marker.exists()
    assert "pi runs tool calls unguarded (--fail-open)" in result.output


def test_a_session_hook_attached_by_a_node_program(pi, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = pi
    ready = tmp_path / "ready"
    with node_session_guard(env.env, ready, "tool.approval.pre") as guard:
        marker = project / "touched"
        result = run(f"touch {marker}", ready_file=ready)
        assert result.returncode == 0, result.output
        assert ready.exists(), "the Node program never attached its session hook"
        assert not marker.exists()
        told = result.tool_results()
        assert told and REASON in told[0], (told, result.output)
        [call] = decides(env)
        assert call["decision"] == "deny"
        assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
        assert call["decided_by"]["source"] == f"client:{guard.pid}"
        assert call["session"] == ready.read_text()


def test_doctor_sends_a_canary_through_the_extension(pi) -> None:  # type: ignore[no-untyped-def]
    env, daemon, _project, _run = pi
    status = env.hookd("bridge", "status", "--check", "--json", timeout=180)
    report = json.loads(status.stdout)
    [row] = [r for r in report["agents"] if r["agent"] == "pi"]
    assert row["fail_closed"] and row["how"] == [f"extension {row['path']}"] and not row["problems"], row
    [check] = [c for c in report["checks"] if c["name"] == "pi" and "canary" in c["message"]]
    assert check["status"] == "ok" and "'block-dangerous-commands'" in check["message"], check
    [canary] = [e for e in decides(env) if e["session"].startswith("hookd-canary-")]
    assert canary["payload"]["agent"] == "pi" and canary["payload"]["toolName"] == "execute_command"
    daemon.stop()
    down = env.hookd("bridge", "status", "--check", "--json", timeout=180)
    [check] = [c for c in json.loads(down.stdout)["checks"] if c["name"] == "pi" and "hookd does not answer" in c["message"]]
    assert check["status"] == "warn" and "pi refuses tool calls until it does" in check["message"], check
