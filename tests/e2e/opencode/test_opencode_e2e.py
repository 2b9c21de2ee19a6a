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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import DaemonProcess, Env
from tests.e2e.guards import install_guards, install_readme_guard
from tests.e2e.harness import Run, decides, denied, guarded_by_node, journal, model, precious, require, rewritten, run_agent
from tests.e2e.session_guard import node_session_guard

from .model_server import WIRE, shell

HERE = Path(__file__).resolve().parent
OPENCODE = HERE / "node_modules" / ".bin" / "opencode"
PROVIDER = HERE / "node_modules" / "@ai-sdk" / "openai-compatible"
PLUGIN_VERSION = "1.18.33"  # @opencode-ai/plugin, as opencode-ai pins it in package.json


pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@dataclass
class Opencode:
    env: Env
    daemon: DaemonProcess
    project: Path
    config: Path

    def run(self, command: str, ready_file: Path | None = None) -> Run:
        """One `opencode run` whose model runs ``command``; with ``ready_file``, only once that file exists."""
        with model(WIRE, shell(command), ready_file) as scripted:
            provider = {
                "npm": PROVIDER.as_uri(),
                "name": "Scripted",
                "options": {"baseURL": f"{scripted.url}/v1", "apiKey": "unused"},
                "models": {"m": {"name": "m"}},
            }
            settings = {"model": "mock/m", "permission": {"bash": "allow"}, "provider": {"mock": provider}}
            (self.config / "opencode.json").write_text(json.dumps(settings))
            return run_agent([OPENCODE, "run", "Run the command."], scripted, self.project, self.env.env)


@pytest.fixture
def opencode(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Opencode]:  # type: ignore[no-untyped-def]
    require(OPENCODE, skip=False)  # node_modules missing is a failure here: run `make e2e-deps`
    assert PROVIDER.exists(), f"{HERE}/node_modules is missing: run `make e2e-deps`"
    # The guards every agent's suite runs, on tool.approval.pre, and beside them the README's guard as written.
    install_guards(env, tmp_path / "guards")
    install_readme_guard(env)
    agent = Opencode(env, daemon_factory(), tmp_path / "project", env.config / "opencode")
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
    config = agent.config
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
    agent.project.mkdir()
    yield agent


def test_the_readme_guard_stops_rm_rf_in_opencode(opencode: Opencode) -> None:
    env = opencode.env
    victim = precious(opencode.project)
    result = opencode.run(f"rm -rf {victim}")
    call = denied(env, result, victim, agent="opencode", tool="bash", reason="'rm -rf' is blocked", by="block-dangerous-commands")
    assert call["session"].startswith("ses_"), call
    assert call["payload"]["args"]["command"] == f"rm -rf {victim}"
    # Denied there, the call never reached tool.execute.before; the session's other events went to hookd too.
    assert decides(env, point="tool.execute.before") == []
    assert decides(env, "--session", call["session"]) == [call]
    assert journal(env, "chat.message", "--session", call["session"])


def test_an_allow_rewrites_the_command(opencode: Opencode) -> None:
    out = opencode.project / "out.txt"
    call = rewritten(opencode.env, opencode.run(f"echo original > {out}"), out)
    assert call["session"].startswith("ses_")
    # tool.execute.before saw the rewritten command, under opencode's names.
    [after] = decides(opencode.env, point="tool.execute.before")
    assert after["payload"]["args"]["command"] == f"echo rewritten > {out}" and after["payload"]["tool"] == "bash"


def test_a_session_hook_attached_by_a_node_program(opencode: Opencode, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    with node_session_guard(opencode.env.env, ready, "tool.execute.before") as guard:
        marker = opencode.project / "touched"
        result = opencode.run(f"touch {marker}", ready_file=ready)
        guarded_by_node(opencode.env, result, marker, ready, guard, point="tool.execute.before")


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
