"""opencode end to end: the real CLI, offline, against a scripted Chat Completions server, with hookd's plugin.

opencode loads its provider package (`@ai-sdk/openai-compatible`) from the `file://` path in opencode.json,
out of this directory's node_modules (`npm ci` here, see package.json), and it does not reinstall its plugin
dependency (`@opencode-ai/plugin`) when its configuration directory already has a node_modules and a lock
file naming it. npm's registry is pointed at a closed port, so any fetch would fail the run.
"""

from __future__ import annotations

import json
import os
import shutil
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
OPENCODE = HERE / "node_modules" / ".bin" / "opencode"
PROVIDER = HERE / "node_modules" / "@ai-sdk" / "openai-compatible"
PLUGIN_VERSION = "1.18.33"  # @opencode-ai/plugin, as opencode-ai pins it in package.json


pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict]

    def tool_results(self) -> list[str]:
        """What opencode told the model about its tool call (the tool messages of later requests)."""
        out = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if m.get("role") == "tool":
                    content = m.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return out


@pytest.fixture
def opencode(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    assert OPENCODE.exists() and PROVIDER.exists(), f"{HERE}/node_modules is missing: run `make e2e-deps`"
    # The guards every agent's suite runs, on tool.approval.pre, and beside them the README's guard as written.
    install_guards(env, tmp_path / "guards")
    readme = env.config / "hookd" / "hooks.d" / "readme.yaml"
    readme.parent.mkdir(parents=True)
    readme.write_text(readme_hooks_file())
    daemon: DaemonProcess = daemon_factory()
    for d in ("data", "cache"):
        (tmp_path / d).mkdir()
    env.env.update(
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        npm_config_registry="http://127.0.0.1:9/",
    )
    config = env.config / "opencode"
    config.mkdir(parents=True)
    # opencode installs @opencode-ai/plugin into each configuration directory unless node_modules exists and
    # the lock file already names every dependency: the hookd plugin needs none of it.
    (config / "node_modules").mkdir()
    (config / "package.json").write_text(json.dumps({"dependencies": {"@opencode-ai/plugin": PLUGIN_VERSION}}))
    (config / "package-lock.json").write_text(
        json.dumps({"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": PLUGIN_VERSION}}}})
    )
    installed = env.hookd("bridge", "install", "opencode")
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
            "npm": PROVIDER.as_uri(),
            "name": "Scripted",
            "options": {"baseURL": f"http://127.0.0.1:{port_file.read_text()}/v1", "apiKey": "unused"},
            "models": {"m": {"name": "m"}},
        }
        settings = {"model": "mock/m", "permission": {"bash": "allow"}, "provider": {"mock": provider}}
        (config / "opencode.json").write_text(json.dumps(settings))
        done = subprocess.run(
            [str(OPENCODE), "run", "Run the command."], cwd=project, env=env.env, capture_output=True, text=True, timeout=400
        )
        requests = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        return Run(done.returncode, done.stdout + done.stderr, requests)

    yield env, daemon, project, run
    for s in servers:
        s.kill()
        s.wait()


def decides(env: Env, *extra: str, point: str = "tool.approval.pre") -> list[dict]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", point, *extra)
    assert tail.returncode == 0, tail.stderr
    return [e for e in map(json.loads, tail.stdout.splitlines()) if e.get("kind") == "decide"]


def test_the_readme_guard_stops_rm_rf_in_opencode(opencode) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = opencode
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
    assert call["session"].startswith("ses_"), call
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "bash"
    assert call["payload"]["agent"] == "opencode"
    # Denied there, the call never reached tool.execute.before; the session's other events went to hookd too.
    assert decides(env, point="tool.execute.before") == []
    assert decides(env, "--session", call["session"]) == [call]
    chat = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "chat.message", "--session", call["session"])
    assert chat.stdout.strip(), chat.stderr


def test_an_allow_rewrites_the_command(opencode) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = opencode
    out = project / "out.txt"
    result = run(f"echo original > {out}")
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n"
    [call] = decides(env)
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"].startswith("ses_")
    # tool.execute.before saw the rewritten command, under opencode's names.
    [after] = decides(env, point="tool.execute.before")
    assert after["payload"]["args"]["command"] == f"echo rewritten > {out}" and after["payload"]["tool"] == "bash"


def test_a_session_hook_attached_by_a_node_program(opencode, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, _daemon, project, run = opencode
    ready = tmp_path / "ready"
    with node_session_guard(env.env, ready, "tool.execute.before") as guard:
        marker = project / "touched"
        result = run(f"touch {marker}", ready_file=ready)
        assert result.returncode == 0, result.output
        assert ready.exists(), "the Node program never attached its session hook"
        assert not marker.exists()
        told = result.tool_results()
        assert told and REASON in told[0], (told, result.output)
        [call] = decides(env, point="tool.execute.before")
        assert call["decision"] == "deny"
        assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
        assert call["decided_by"]["source"] == f"client:{guard.pid}"
        assert call["session"] == ready.read_text()


def test_install_then_uninstall_leaves_the_tree_as_it_was(env: Env, tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".opencode").mkdir(parents=True)
    (project / ".opencode" / "opencode.json").write_text("{}\n")
    before = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    first = subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "install", "opencode", "--project"],
        cwd=project,
        env=env.env,
        capture_output=True,
        text=True,
    )
    assert first.returncode == 0, first.stderr
    plugin = project / ".opencode" / "plugin" / "hookd.js"
    assert "export const HookdPlugin" in plugin.read_text() and 'from "./hookd-client.mjs"' in plugin.read_text()
    again = subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "install", "opencode", "--project"],
        cwd=project,
        env=env.env,
        capture_output=True,
        text=True,
    )
    assert "already installed" in again.stdout
    gone = subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "uninstall", "opencode", "--project"],
        cwd=project,
        env=env.env,
        capture_output=True,
        text=True,
    )
    assert gone.returncode == 0, gone.stderr
    assert sorted(str(p.relative_to(project)) for p in project.rglob("*")) == before
    assert (project / ".opencode" / "opencode.json").read_text() == "{}\n"
    # A hookd.js hookd did not write is never touched.
    (project / ".opencode" / "plugin").mkdir()
    (project / ".opencode" / "plugin" / "hookd.js").write_text("export const Mine = async () => ({})\n")
    refused = subprocess.run(
        [sys.executable, "-m", "hookd", "bridge", "uninstall", "opencode", "--project"],
        cwd=project,
        env=env.env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "not written by hookd" in refused.stderr
    assert (project / ".opencode" / "plugin" / "hookd.js").read_text() == "export const Mine = async () => ({})\n"
    assert os.path.exists(project / ".opencode" / "opencode.json")
