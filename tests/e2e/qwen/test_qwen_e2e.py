"""Qwen Code end to end: the real CLI, offline, against a scripted Chat Completions API, through `hookd bridge install qwen`.

A test HOME whose .qwen/settings.json picks the OpenAI-compatible auth and turns folder trust off, and
OPENAI_BASE_URL on 127.0.0.1 with any OPENAI_API_KEY and OPENAI_MODEL make `qwen -p PROMPT --yolo` run a whole
session against model_server.py. The bridge (HTTP hooks to the daemon's endpoint, no process per event) is
installed into that settings file by hookd itself; a real daemon runs real YAML guards.
"""

from __future__ import annotations

import json
import shutil
import signal
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
QWEN = HERE / "node_modules" / ".bin" / "qwen"


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
        """What Qwen Code told the model about its tool call (the tool messages of later requests)."""
        out = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if m.get("role") == "tool":
                    content = m.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return out


@pytest.fixture
def qwen(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    assert QWEN.exists(), f"{HERE}/node_modules is missing: run `make e2e-deps`"
    install_guards(env, tmp_path / "guards")
    daemon = daemon_factory()
    settings = env.home / ".qwen" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = json.dumps({"security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}}}, indent=2)
    settings.write_text(original + "\n")
    installed = env.hookd("bridge", "install", "qwen")
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(command: str, ready_file: Path | None = None) -> Run:
        """One `qwen -p` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        base = f"http://127.0.0.1:{port_file.read_text()}/v1"
        agent_env = dict(env.env, OPENAI_BASE_URL=base, OPENAI_API_KEY="unused", OPENAI_MODEL="m", QWEN_CODE_SUPPRESS_YOLO_WARNING="1")
        done = subprocess.run(
            [str(QWEN), "-p", "Run the command.", "--yolo"], cwd=project, env=agent_env, capture_output=True, text=True, timeout=400
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


def test_a_global_guard_stops_rm_rf_in_qwen_code(qwen) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = qwen
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
    assert call["payload"]["agent"] == "qwen"
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    session = call["session"]
    assert session and call["project"] == str(project)
    # The session's other events reached hookd under the same session: SessionStart attached it.
    start = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "agent.turn.start", "--session", session)
    assert start.returncode == 0 and json.loads(start.stdout.splitlines()[0])["payload"]["source"] == "startup", start.stdout


def test_qwen_code_runs_the_original_command_when_an_allow_rewrites_it(qwen) -> None:  # type: ignore[no-untyped-def]
    """Qwen Code 0.24 documents PreToolUse's `updatedInput` but does not apply it: its firePreToolUseHook reads
    only deny, ask, `continue: false` and additionalContext. hookd's answer carries the rewrite; the agent runs
    the model's command. When Qwen Code starts applying it, this test fails and docs/bridges.md must change."""
    env, project, run, _settings, _original, _daemon = qwen
    out = project / "out.txt"
    result = run(f"echo original > {out}")
    assert result.returncode == 0, result.output
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"]
    assert out.read_text() == "original\n"


def test_uninstall_restores_the_settings_byte_for_byte(qwen) -> None:  # type: ignore[no-untyped-def]
    env, _project, _run, settings, original, _daemon = qwen
    doc = json.loads(settings.read_text())
    assert set(doc["hooks"]) >= {"PreToolUse", "PostToolUse", "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop"}
    [group] = doc["hooks"]["PreToolUse"]
    assert group["hooks"][0]["type"] == "http" and group["hooks"][0]["timeout"] == 600
    assert (settings.stat().st_mode & 0o777) == 0o600, "the file holds the endpoint's secret"
    gone = env.hookd("bridge", "uninstall", "qwen")
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == original


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(qwen) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, daemon = qwen
    again = env.hookd("bridge", "install", "qwen", "--fail-closed", "--timeout", "20")
    assert again.returncode == 0, again.stderr
    daemon.stop()
    marker = project / "marker"
    result = run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    # The shim words it "not answering on 127.0.0.1:PORT"; without a C compiler the Python bridge runs instead.
    assert told and "--fail-closed" in told[0], (told, result.output)
    assert "hookd is not answering" in told[0] or "hookd is not running" in told[0], told


def test_a_session_hook_attached_by_a_node_program(qwen, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = qwen
    ready = tmp_path / "ready"
    marker = project / "touched"
    # The Node program attaches to the Qwen Code session at its first chat.message (UserPromptSubmit).
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


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_hangs(qwen) -> None:  # type: ignore[no-untyped-def]
    """A daemon that accepts connections and never answers (stopped): the shim must give up and deny before
    Qwen Code's own timeout kills it, or Qwen Code runs the tool."""
    env, project, run, _settings, _original, daemon = qwen
    again = env.hookd("bridge", "install", "qwen", "--fail-closed", "--timeout", "3")
    assert again.returncode == 0, again.stderr
    daemon.signal(signal.SIGSTOP)
    marker = project / "marker"
    try:
        result = run(f"touch {marker}")
    finally:
        daemon.signal(signal.SIGCONT)
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "--fail-closed" in told[0], (told, result.output)
