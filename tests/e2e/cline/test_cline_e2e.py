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
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookd.agents.shim import compiler
from tests.conftest import Env, write_script
from tests.e2e.guards import install_guards
from tests.e2e.session_guard import REASON, node_session_guard

HERE = Path(__file__).resolve().parent
CLINE = HERE / "node_modules" / ".bin" / "cline"
EVENTS = ("PreToolUse", "PostToolUse", "TaskStart", "TaskResume", "UserPromptSubmit", "TaskComplete", "TaskCancel", "TaskError")

pytestmark = pytest.mark.timeout(600)


def require_cline() -> Path:
    """The CLI and a C compiler for the shim, or skip; in CI (``$CI`` set) a missing one fails instead."""
    missing = None
    if not (CLINE.exists() and os.access(CLINE, os.X_OK)):
        missing = f"the Cline CLI is not installed at {CLINE} (npm ci in {HERE}, or make e2e-deps)"
    elif compiler() is None:
        missing = "no C compiler: the Cline bridge runs the compiled shim"
    if missing is None:
        return CLINE
    if os.environ.get("CI"):
        pytest.fail(missing)
    pytest.skip(missing)


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict]

    def tool_results(self) -> list[str]:
        """What Cline told the model about its tool call (the `tool` messages of later requests)."""
        out: list[str] = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if isinstance(m, dict) and m.get("role") == "tool":
                    text = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                    if text not in out:
                        out.append(text)
        return out

    def task(self) -> str:
        """The run's task, which hookd takes as its session."""
        tasks = {json.loads(line).get("taskId") for line in self.output.splitlines() if line.startswith("{") and '"taskId"' in line}
        [task] = tasks - {None}
        return str(task)


@pytest.fixture
def cline(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    binary = require_cline()
    install_guards(env, tmp_path / "guards")
    env.env["PATH"] = f"{binary.parent}:{env.env['PATH']}"
    for name in ("CLINE_DIR", "CLINE_DATA_DIR", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        env.env.pop(name, None)
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(
        command: str,
        install: tuple[str, ...] = (),
        ready_file: Path | None = None,
        started: Callable[[], None] | None = None,
        prepare: Callable[[], None] | None = None,
    ) -> Run:
        """One `cline --json` whose model runs ``command`` (commands separated by a `;;` line: one tool call with
        them all), with the bridge installed (``install``: more install options) and uninstalled after;
        ``prepare()`` runs before the daemon starts, ``started()`` once it does; with ``ready_file`` the model asks for
        the command only once that file exists."""
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        data_dir = tmp_path / f"cline-data{len(servers)}"
        url = f"http://127.0.0.1:{port_file.read_text()}/v1"
        auth = [str(binary), "auth", "--data-dir", str(data_dir), "-p", "openai", "--apikey", "x", "--modelid", "m", "--baseurl", url]
        done = subprocess.run(auth, cwd=project, env=env.env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert done.returncode == 0 and "Provider configured" in done.stdout, done.stdout + done.stderr
        if prepare is not None:
            prepare()
        daemon = daemon_factory()
        if started is not None:
            started()
        hooks_dir = project / ".clinerules" / "hooks" if "--project" in install else env.home / ".cline" / "hooks"
        before = sorted(p.name for p in hooks_dir.iterdir()) if hooks_dir.is_dir() else None
        installed = subprocess.run(
            [*env.command, "bridge", "install", "cline", *install], cwd=project, env=env.env, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
        for event in EVENTS:
            assert os.access(hooks_dir / event, os.X_OK), event
        pre = (hooks_dir / "PreToolUse").read_text()
        # The shim posting to the daemon's /cline/ endpoint, giving up 3 s before Cline's 120 s would.
        assert "claude-shim PreToolUse " in pre and " --agent cline --timeout 117" in pre, pre
        if "--fail-closed" in install:
            # Doctor's canary first: a tool call through the installed hook, answered by hookd as cline's own shell.
            status = subprocess.run(
                [*env.command, "bridge", "status", "--check", "--json"],
                cwd=project,
                env=env.env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            report = json.loads(status.stdout)
            assert status.returncode == 0 and report["ok"], status.stdout + status.stderr
            [row] = [r for r in report["agents"] if r["agent"] == "cline"]
            assert row["fail_closed"] and row["problems"] == [] and row["how"][0].endswith("/PreToolUse"), row
            [canary] = [c for c in report["checks"] if c["name"] == "cline" and "canary" in c["message"]]
            assert canary["status"] == "ok", report["checks"]
            daemon.stop()
        argv = [str(binary), "--data-dir", str(data_dir), "--json", "Run the command."]
        done = subprocess.run(argv, cwd=project, env=env.env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        removed = subprocess.run(
            [*env.command, "bridge", "uninstall", "cline", *[o for o in install if o == "--project"]],
            cwd=project,
            env=env.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert removed.returncode == 0, removed.stderr
        after = sorted(p.name for p in hooks_dir.iterdir()) if hooks_dir.is_dir() else None
        assert after == before, "uninstall did not leave the hooks folder as it was"
        requests = [json.loads(line) for line in log_file.read_text().splitlines() if line.strip()]
        return Run(done.returncode, done.stdout + done.stderr, requests)

    yield env, project, run
    for s in servers:
        s.kill()
        s.wait()


def journal(env: Env, point: str, *extra: str) -> list[dict]:
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", point, *extra)
    assert tail.returncode == 0, tail.stderr
    return [json.loads(line) for line in tail.stdout.splitlines()]


def test_a_global_guard_sees_every_command_and_stops_rm_rf_in_cline(cline) -> None:  # type: ignore[no-untyped-def]
    env, project, run = cline
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    first = project / "first"
    # One tool call, two commands: the guard reads them as one script, and the whole call is refused.
    result = run(f"touch {first}\n;;\nrm -rf {victim}")
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    assert not first.exists()
    [told] = result.tool_results()
    [item] = json.loads(told)
    assert item["success"] is False and "blocked by hookd: no recursive force delete" in item["result"], told
    session = result.task()
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "no-rm-rf"
    assert call["session"] == session and call["project"] == str(project)
    args = {"commands": [f"touch {first}", f"rm -rf {victim}"], "command": f"touch {first}\nrm -rf {victim}"}
    assert call["payload"]["args"] == args
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "run_commands"
    assert call["payload"]["agent"] == "cline"
    # The task's start reached hookd under the same session, which the bridge attached.
    [start] = journal(env, "agent.turn.start", "--session", session)
    assert start["kind"] == "emit" and start["payload"]["agent"] == "cline"


def test_an_allow_rewrites_the_command_from_the_project_s_hooks(cline) -> None:  # type: ignore[no-untyped-def]
    env, project, run = cline
    out = project / "out.txt"
    result = run(f"echo original > {out}", install=("--project",))
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n", result.output
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"] == result.task()


def test_fail_closed_holds_with_the_daemon_down(cline) -> None:  # type: ignore[no-untyped-def]
    _, project, run = cline
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}", install=("--fail-closed",))
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    [told] = result.tool_results()
    [item] = json.loads(told)
    assert item["success"] is False, told
    assert "blocked by hookd: hookd could not be asked (hookd is not answering on 127.0.0.1:" in item["result"], told
    assert "the hookd shim runs with --fail-closed" in item["result"], told


def test_a_session_hook_attached_by_a_node_program(cline, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run = cline
    ready = tmp_path / "ready"
    guards = ExitStack()
    guard: list[subprocess.Popen[bytes]] = []
    marker = project / "touched"

    def start() -> None:
        # Cline's CLI runs no prompt hook: the Node program attaches to the task once its TaskStart reaches hookd.
        guard.append(guards.enter_context(node_session_guard(env.env, ready, "tool.approval.pre", start="agent.turn.start")))

    with guards:
        result = run(f"touch {marker}", ready_file=ready, started=start)
    assert result.returncode == 0, result.output
    assert ready.exists(), "the Node program never attached its session hook"
    assert not marker.exists()
    [told] = result.tool_results()
    assert f"blocked by hookd: {REASON}" in json.loads(told)[0]["result"], told
    session = result.task()
    assert ready.read_text() == session
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["session"] == session
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard[0].pid}"


NO_TOUCH = """
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["HOME"], "seen.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\\n")
if data["tool_call"]["input"]["commands"][0].startswith("touch "):
    print(json.dumps({"cancel": True, "errorMessage": "touch is not allowed here"}))
"""


def test_a_cline_hook_imported_into_hookd_runs_once_and_blocks_only_the_call(cline) -> None:  # type: ignore[no-untyped-def]
    env, project, run = cline
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
    result = run(f"touch {marker}", prepare=import_it)
    assert result.returncode == 0, result.output
    assert not marker.exists()
    # In Cline a cancel ends the run unexplained; through hookd it refuses the one call, and the model reads why.
    [told] = result.tool_results()
    assert "blocked by hookd: touch is not allowed here" in json.loads(told)[0]["result"], told
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["tool_call"]["name"] == "run_commands" and data["tool_call"]["input"] == {"commands": [f"touch {marker}"]}
    assert data["preToolUse"]["parameters"] == {"commands": json.dumps([f"touch {marker}"], separators=(",", ":"))}
    assert data["taskId"] == result.task() and data["workspaceRoots"] == [str(project)] and data["hookName"] == "tool_call"
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "cline-pre-tool-use-1"
    undone = env.hookd("import", "cline", "--undo", str(hooks))
    assert undone.returncode == 0, undone.stderr
    assert mine.read_text().endswith(NO_TOUCH) and os.access(mine, os.X_OK)
