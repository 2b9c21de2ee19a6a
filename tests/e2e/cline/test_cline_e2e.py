"""Cline end to end: the real CLI (`cline --json`, the 3.x CLI), offline, against a scripted Chat Completions server.

The CLI is this directory's `cline` (`npm ci` here: a native binary in a platform package). `cline auth` points
its openai-compatible provider at the scripted server on 127.0.0.1; every run has its own `--data-dir`, so no
hub daemon is left behind. Tools are auto-approved, so nothing but the hook stands between the model's command
and the machine. `hookd bridge install cline` writes one hook file per event into ~/.cline/hooks (or the
project's .clinerules/hooks), each running the compiled shim, which posts to the daemon's /cline/ endpoint.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookd.agents.shim import compiler
from tests.conftest import DaemonProcess, Env, write_script
from tests.e2e.guards import install_guards
from tests.e2e.harness import (
    Run,
    blocked,
    canary_passes,
    decides,
    denied,
    guarded_by_node,
    hookd_in,
    journal,
    listing,
    model,
    precious,
    require,
    rewritten,
    run_agent,
)
from tests.e2e.scripted import on_path
from tests.e2e.session_guard import REASON, LaterNodeGuard

from .model_server import WIRE, shell

HERE = Path(__file__).resolve().parent
CLINE = HERE / "node_modules" / ".bin" / "cline"
EVENTS = ("PreToolUse", "PostToolUse", "TaskStart", "TaskResume", "UserPromptSubmit", "TaskComplete", "TaskCancel", "TaskError")

pytestmark = pytest.mark.timeout(600)


@dataclass
class Cline:
    env: Env
    project: Path
    tmp: Path
    daemon_factory: Callable[..., DaemonProcess]
    runs: int = 0

    def run(
        self,
        *commands: str,
        install: tuple[str, ...] = (),
        ready_file: Path | None = None,
        started: Callable[[], None] | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> Run:
        """One `cline --json` whose model runs ``commands`` (one tool call with them all), with the bridge
        installed (``install``: more install options) and uninstalled after; ``prepare()`` runs before the daemon
        starts, ``started()`` once it does; with ``ready_file`` the model asks for the commands only once that
        file exists."""
        env, project = self.env, self.project
        self.runs += 1
        data_dir = self.tmp / f"cline-data{self.runs}"
        with model(WIRE, shell(*commands), ready_file) as scripted:
            auth = ["auth", "--data-dir", str(data_dir), "-p", "openai", "--apikey", "x", "--modelid", "m"]
            auth += ["--baseurl", f"{scripted.url}/v1"]
            done = subprocess.run(
                [str(CLINE), *auth], cwd=project, env=env.env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
            )
            assert done.returncode == 0 and "Provider configured" in done.stdout, done.stdout + done.stderr
            if prepare is not None:
                prepare()
            daemon = self.daemon_factory()
            if started is not None:
                started()
            hooks_dir = project / ".clinerules" / "hooks" if "--project" in install else env.home / ".cline" / "hooks"
            before = listing(hooks_dir)
            installed = hookd_in(env, project, "bridge", "install", "cline", *install)
            assert installed.returncode == 0, installed.stdout + installed.stderr
            for event in EVENTS:
                assert os.access(hooks_dir / event, os.X_OK), event
            pre = (hooks_dir / "PreToolUse").read_text()
            # The shim posting to the daemon's /cline/ endpoint, giving up 3 s before Cline's 120 s would.
            assert "claude-shim PreToolUse " in pre and " --agent cline --timeout 117" in pre, pre
            if "--fail-closed" in install:
                row = canary_passes(env, project, "cline")
                assert row["how"][0].endswith("/PreToolUse"), row
                daemon.stop()
            result = run_agent([CLINE, "--data-dir", data_dir, "--json", "Run the command."], scripted, project, env.env, timeout=300)
        removed = hookd_in(env, project, "bridge", "uninstall", "cline", *[o for o in install if o == "--project"], timeout=60)
        assert removed.returncode == 0, removed.stderr
        assert listing(hooks_dir) == before, "uninstall did not leave the hooks folder as it was"
        return result


def task(result: Run) -> str:
    """The run's task, which hookd takes as its session."""
    tasks = {json.loads(line).get("taskId") for line in result.output.splitlines() if line.startswith("{") and '"taskId"' in line}
    [one] = tasks - {None}
    return str(one)


def result_text(told: str) -> str:
    """What Cline's run_commands told the model: a JSON list of one result per command."""
    [item] = json.loads(told)
    return str(item["result"])


@pytest.fixture
def cline(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Cline]:  # type: ignore[no-untyped-def]
    binary = require(CLINE, None if compiler() is not None else "no C compiler: the Cline bridge runs the compiled shim")
    install_guards(env, tmp_path / "guards")
    env.env["PATH"] = on_path(binary.parent, env.env)
    for name in ("CLINE_DIR", "CLINE_DATA_DIR", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.env.pop(name, None)
    agent = Cline(env, tmp_path / "project", tmp_path, daemon_factory)
    agent.project.mkdir()
    yield agent


def test_a_global_guard_sees_every_command_and_stops_rm_rf_in_cline(cline: Cline) -> None:
    env, project = cline.env, cline.project
    victim = precious(project)
    first = project / "first"
    # One tool call, two commands: the guard reads them as one script, and the whole call is refused.
    result = cline.run(f"touch {first}", f"rm -rf {victim}")
    call = denied(env, result, victim, agent="cline", tool="run_commands", reason="blocked by hookd: no recursive force delete")
    assert not first.exists()
    [told] = result.tool_results()
    [item] = json.loads(told)
    assert item["success"] is False and "blocked by hookd: no recursive force delete" in item["result"], told
    session = task(result)
    assert call["session"] == session and call["project"] == str(project)
    args = {"commands": [f"touch {first}", f"rm -rf {victim}"], "command": f"touch {first}\nrm -rf {victim}"}
    assert call["payload"]["args"] == args
    # The task's start reached hookd under the same session, which the bridge attached.
    [start] = journal(env, "agent.turn.start", "--session", session)
    assert start["kind"] == "emit" and start["payload"]["agent"] == "cline"


def test_an_allow_rewrites_the_command_from_the_project_s_hooks(cline: Cline) -> None:
    out = cline.project / "out.txt"
    result = cline.run(f"echo original > {out}", install=("--project",))
    call = rewritten(cline.env, result, out)
    assert call["session"] == task(result)


def test_fail_closed_holds_with_the_daemon_down(cline: Cline) -> None:
    victim = precious(cline.project)
    result = cline.run(f"rm -rf {victim}", install=("--fail-closed",))
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    [told] = result.tool_results()
    [item] = json.loads(told)
    assert item["success"] is False, told
    assert "blocked by hookd: hookd could not be asked (hookd is not answering on 127.0.0.1:" in item["result"], told
    assert "the hookd shim runs with --fail-closed" in item["result"], told


def test_a_session_hook_attached_by_a_node_program(cline: Cline, tmp_path: Path) -> None:
    env = cline.env
    ready = tmp_path / "ready"
    marker = cline.project / "touched"
    # Cline's CLI runs no prompt hook: the Node program attaches to the task once its TaskStart reaches hookd.
    with LaterNodeGuard(env.env, ready, start="agent.turn.start") as later:
        result = cline.run(f"touch {marker}", ready_file=ready, started=later)
    call = guarded_by_node(env, result, marker, ready, later.guard)
    [told] = result.tool_results()
    assert f"blocked by hookd: {REASON}" in result_text(told), told
    assert ready.read_text() == task(result) == call["session"]


NO_TOUCH = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["HOME"], "seen.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\\n")
if data["tool_call"]["input"]["commands"][0].startswith("touch "):
    print(json.dumps({"cancel": True, "errorMessage": "touch is not allowed here"}))
"""


def test_a_cline_hook_imported_into_hookd_runs_once_and_blocks_only_the_call(cline: Cline) -> None:
    env, project = cline.env, cline.project
    hooks = env.home / ".cline" / "hooks"
    mine = hooks / "PreToolUse.py"
    seen = env.home / "seen.jsonl"

    def import_it() -> None:
        hooks.mkdir(parents=True)
        write_script(mine, NO_TOUCH)
        out = env.config / "hookd" / "hooks.d" / "cline.yaml"
        done = env.hookd("import", "cline", str(hooks), "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert "where Cline no longer runs them" in done.stderr, done.stderr
        assert "name: cline-pre-tool-use-1" in out.read_text()

    marker = project / "touched"
    result = cline.run(f"touch {marker}", prepare=import_it)
    blocked(result, marker)
    # In Cline a cancel ends the run unexplained; through hookd it refuses the one call, and the model reads why.
    [told] = result.tool_results()
    assert "blocked by hookd: touch is not allowed here" in result_text(told), told
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["tool_call"]["name"] == "run_commands" and data["tool_call"]["input"] == {"commands": [f"touch {marker}"]}
    assert data["preToolUse"]["parameters"] == {"commands": json.dumps([f"touch {marker}"], separators=(",", ":"))}
    assert data["taskId"] == task(result) and data["workspaceRoots"] == [str(project)] and data["hookName"] == "tool_call"
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "cline-pre-tool-use-1"
    undone = env.hookd("import", "cline", "--undo", str(hooks))
    assert undone.returncode == 0, undone.stderr
    assert mine.read_text().endswith(NO_TOUCH) and os.access(mine, os.X_OK)
