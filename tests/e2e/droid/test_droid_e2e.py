"""Factory Droid end to end: the real CLI, offline, against a scripted Chat Completions API, through `hookd bridge install droid`.

`droid exec --skip-permissions-unsafe -m custom:mock-0 PROMPT` runs a whole session against model_server.py with no
sign-in: the custom model (`generic-chat-completion-api` on 127.0.0.1) comes from a runtime settings file given
with `--settings`, so that ~/.factory/settings.json holds only what `hookd bridge install droid` wrote there (the
compiled shim, `--agent droid`, on every event Droid fires). A real daemon runs the real YAML guards.
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
DROID = HERE / "node_modules" / ".bin" / "droid"


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
class Run:
    returncode: int
    output: str
    requests: list[dict[str, Any]]

    def tool_results(self) -> list[str]:
        """What Droid told the model about its tool call (the tool messages of later requests)."""
        out = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if m.get("role") == "tool":
                    content = m.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return list(dict.fromkeys(out))


@pytest.fixture
def droid(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    assert DROID.exists(), f"{HERE}/node_modules is missing: run `make e2e-deps`"
    install_guards(env, tmp_path / "guards")
    daemon = daemon_factory()
    settings = env.home / ".factory" / "settings.json"
    settings.parent.mkdir(parents=True)
    original = json.dumps({"model": "custom:mock-0", "cloudSessionSync": False}, indent=2) + "\n"
    settings.write_text(original)
    installed = env.hookd("bridge", "install", "droid")  # the shim, built with the machine's C compiler
    assert installed.returncode == 0, installed.stderr
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(command: str, ready_file: Path | None = None) -> Run:
        """One `droid exec` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        n = len(servers)
        port_file, log_file = tmp_path / f"port{n}", tmp_path / f"requests{n}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        model = {
            "model": "m",
            "displayName": "mock",
            "baseUrl": f"http://127.0.0.1:{port_file.read_text()}/v1",
            "apiKey": "unused",
            "provider": "generic-chat-completion-api",
            "maxOutputTokens": 4096,
        }
        runtime = tmp_path / f"runtime{n}.json"
        runtime.write_text(json.dumps({"customModels": [model]}))
        argv = [str(DROID), "exec", "--skip-permissions-unsafe", "-m", "custom:mock-0", "--settings", str(runtime), "Run the command."]
        done = subprocess.run(argv, cwd=project, env=env.env, capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL)
        requests = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        return Run(done.returncode, done.stdout + done.stderr, requests)

    yield env, project, run, settings, original, daemon
    for s in servers:
        s.kill()
        s.wait()


def decides(env: Env, *extra: str) -> list[dict[str, Any]]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre", *extra)
    assert tail.returncode == 0, tail.stderr
    return [e for e in map(json.loads, tail.stdout.splitlines()) if e.get("kind") == "decide"]


def test_a_global_guard_stops_rm_rf_in_droid(droid) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = droid
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
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "Execute"
    assert call["payload"]["agent"] == "droid"
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    session = call["session"]
    assert session and call["project"] == str(project)
    # The session's other events reached hookd under the same session, naming Droid: SessionStart attached it.
    start = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "agent.turn.start", "--session", session)
    assert start.returncode == 0, start.stderr
    first = json.loads(start.stdout.splitlines()[0])
    assert first["payload"]["source"] == "startup" and first["payload"]["agent"] == "droid", first


def test_an_allow_rewrites_the_command_in_droid(droid) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = droid
    out = project / "out.txt"
    result = run(f"echo original > {out}")
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n"
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"]


def test_uninstall_restores_the_settings_byte_for_byte(droid) -> None:  # type: ignore[no-untyped-def]
    env, _project, _run, settings, original, _daemon = droid
    doc = json.loads(settings.read_text())
    assert set(doc["hooks"]) == {
        "PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd",
    }  # fmt: skip
    [group] = doc["hooks"]["PreToolUse"]
    words = shlex.split(group["hooks"][0]["command"])
    assert Path(words[0]).name == "claude-shim" and words[1] == "PreToolUse" and words[-2:] == ["--agent", "droid"], words
    # Droid waits 600 s; the shim gives up at 588 s, so Droid hears its answer.
    assert group["hooks"][0]["timeout"] == 600 and "--timeout 588" in group["hooks"][0]["command"]
    gone = env.hookd("bridge", "uninstall", "droid")
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == original


def test_with_fail_closed_a_tool_call_is_denied_while_hookd_is_down(droid) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, daemon = droid
    again = env.hookd("bridge", "install", "droid", "--fail-closed", "--timeout", "20")
    assert again.returncode == 0, again.stderr
    daemon.stop()
    marker = project / "marker"
    result = run(f"touch {marker}")
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "hookd could not be asked" in told[0] and "--fail-closed" in told[0], (told, result.output)


def test_a_session_hook_attached_by_a_node_program(droid, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run, _settings, _original, _daemon = droid
    ready = tmp_path / "ready"
    marker = project / "touched"
    # `droid exec` sends no UserPromptSubmit: the Node program attaches at the session's start (SessionStart).
    with node_session_guard(env.env, ready, "tool.approval.pre", start="agent.turn.start") as guard:
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
