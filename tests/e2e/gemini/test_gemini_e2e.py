"""Gemini CLI end to end: the real CLI, offline, against a scripted Gemini API, through `hookd bridge install gemini`
(the compiled shim, one loopback request to the daemon's /gemini/ endpoint per event).

A test HOME whose .gemini/settings.json picks API-key auth and turns folder trust off, GOOGLE_GEMINI_BASE_URL on
127.0.0.1 and any GEMINI_API_KEY make `gemini -p PROMPT --yolo` run a whole session against model_server.py.
The bridge is installed into that settings file by hookd itself; a real daemon runs real YAML guards.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Env
from tests.e2e.guards import install_guards
from tests.e2e.session_guard import REASON, node_session_guard

HERE = Path(__file__).resolve().parent
GEMINI = HERE / "node_modules" / ".bin" / "gemini"


pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict[str, Any]]

    def tool_results(self) -> list[str]:
        """What Gemini CLI told the model about its tool call (the functionResponse parts of later requests)."""
        out = []
        for r in self.requests:
            for content in r["body"].get("contents") or []:
                for part in content.get("parts") or []:
                    if "functionResponse" in part:
                        out.append(json.dumps(part["functionResponse"]))
        return out


@pytest.fixture
def gemini(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    assert GEMINI.exists(), f"{HERE}/node_modules is missing: run `make e2e-deps`"
    install_guards(env, tmp_path / "guards")
    daemon = daemon_factory()
    settings = env.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}}, indent=2)
    settings.write_text(original + "\n")
    installed = env.hookd("bridge", "install", "gemini")  # the default command: this hookd, by absolute path
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(command: str, ready_file: Path | None = None) -> Run:
        """One `gemini -p` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        agent_env = dict(env.env, GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{port_file.read_text()}", GEMINI_API_KEY="unused")
        done = subprocess.run(
            [str(GEMINI), "-p", "Run the command.", "--yolo"], cwd=project, env=agent_env, capture_output=True, text=True, timeout=400
        )
        requests = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        return Run(done.returncode, done.stdout + done.stderr, requests)

    yield env, project, run, settings, original + "\n", daemon
    for s in servers:
        s.kill()
        s.wait()


def decides(env: Env, *extra: str) -> list[dict[str, Any]]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre", *extra)
    assert tail.returncode == 0, tail.stderr
    return [e for e in map(json.loads, tail.stdout.splitlines()) if e.get("kind") == "decide"]


def test_a_global_guard_stops_rm_rf_in_gemini_cli(gemini) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = gemini
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}")
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    told = result.tool_results()
    assert told and "no recursive force delete" in told[0], (told, result.output)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "no-rm-rf"
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "run_shell_command"
    assert call["payload"]["agent"] == "gemini"
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "BeforeTool"
    session = call["session"]
    assert session and call["project"] == str(project)
    # The session's other events reached hookd under the same session: SessionStart attached it.
    start = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "agent.turn.start", "--session", session)
    assert start.returncode == 0 and json.loads(start.stdout.splitlines()[0])["payload"]["source"] == "startup", start.stdout


def test_an_allow_rewrites_the_command_in_gemini_cli(gemini) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = gemini
    out = project / "out.txt"
    result = run(f"echo original > {out}")
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n"
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"]


def test_uninstall_restores_the_settings_byte_for_byte(gemini) -> None:  # type: ignore[no-untyped-def]
    env, _project, _run, settings, original, _daemon = gemini
    doc = json.loads(settings.read_text())
    assert set(doc["hooks"]) >= {"BeforeTool", "AfterTool", "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent"}
    [group] = doc["hooks"]["BeforeTool"]
    # Gemini CLI waits 600 000 ms; the shim gives up at 588 s, so Gemini CLI hears its answer.
    assert group["matcher"] == "*" and group["hooks"][0]["timeout"] == 600_000
    words = shlex.split(group["hooks"][0]["command"])
    assert Path(words[0]).name == "claude-shim" and words[1] == "BeforeTool", words
    assert words[-4:] == ["--timeout", "588", "--agent", "gemini"], words
    gone = env.hookd("bridge", "uninstall", "gemini")
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == original


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(gemini) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, daemon = gemini
    again = env.hookd("bridge", "install", "gemini", "--fail-closed", "--timeout", "20")
    assert again.returncode == 0, again.stderr
    daemon.stop()
    marker = project / "marker"
    result = run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "hookd could not be asked" in told[0] and "--fail-closed" in told[0], (told, result.output)


def test_a_session_hook_attached_by_a_node_program(gemini, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = gemini
    ready = tmp_path / "ready"
    marker = project / "touched"
    # The Node program attaches to the Gemini CLI session at its first chat.message (BeforeAgent).
    with node_session_guard(env.env, ready, "tool.approval.pre") as guard:
        result = run(f"touch {marker}", ready_file=ready)
    assert result.returncode == 0, result.output
    assert ready.exists(), "the Node program never attached its session hook"
    assert not marker.exists()
    told = result.tool_results()
    assert told and REASON in told[0], (told, result.output)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["session"] == ready.read_text()
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard.pid}"
    assert call["payload"]["args"]["command"] == f"touch {marker}"
