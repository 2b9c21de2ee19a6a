"""GitHub Copilot CLI end to end: the real CLI (`copilot -p`), offline, against a scripted Chat Completions server.

The CLI is this directory's `@github/copilot` (`npm ci` here: a native binary in a platform package). It runs
with COPILOT_OFFLINE=true and a provider on 127.0.0.1 (COPILOT_PROVIDER_BASE_URL), so no GitHub sign-in and no
network; `--allow-all-tools`, so that nothing but the hook stands between the model's command and the machine.
Its configuration lives in the test's HOME (~/.copilot); the package it unpacks at first start is cached once
per test run (XDG_CACHE_HOME). `hookd bridge install copilot` writes ~/.copilot/hooks/hookd.json (or the
repository's .github/hooks/hookd.json), each hook the compiled shim posting to the daemon's /copilot/ endpoint.
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
COPILOT = HERE / "node_modules" / ".bin" / "copilot"

pytestmark = pytest.mark.timeout(600)


def require_copilot() -> Path:
    """The CLI and a C compiler for the shim, or skip; in CI (``$CI`` set) a missing one fails instead."""
    missing = None
    if not (COPILOT.exists() and os.access(COPILOT, os.X_OK)):
        missing = f"the Copilot CLI is not installed at {COPILOT} (npm ci in {HERE}, or make e2e-deps)"
    elif compiler() is None:
        missing = "no C compiler: the Copilot bridge runs the compiled shim"
    if missing is None:
        return COPILOT
    if os.environ.get("CI"):
        pytest.fail(missing)
    pytest.skip(missing)


@pytest.fixture(scope="session")
def copilot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where Copilot unpacks its package at first start (about 230 MB): once per test run, not per test."""
    return tmp_path_factory.mktemp("copilot-cache")


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict]

    def tool_results(self) -> list[str]:
        """What Copilot told the model about its tool call (the `tool` messages of later requests)."""
        out: list[str] = []
        for r in self.requests:
            for m in r["body"].get("messages") or []:
                if isinstance(m, dict) and m.get("role") == "tool":
                    text = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                    if text not in out:
                        out.append(text)
        return out


@pytest.fixture
def copilot(env: Env, daemon_factory, tmp_path: Path, copilot_cache: Path) -> Iterator:  # type: ignore[no-untyped-def]
    binary = require_copilot()
    install_guards(env, tmp_path / "guards")
    env.env.update(
        COPILOT_OFFLINE="true",
        COPILOT_PROVIDER_API_KEY="unused",
        COPILOT_MODEL="m",
        COPILOT_AUTO_UPDATE="false",
        XDG_CACHE_HOME=str(copilot_cache),
        PATH=f"{binary.parent}:{env.env['PATH']}",
    )
    for name in ("COPILOT_HOME", "COPILOT_ALLOW_ALL", "GITHUB_TOKEN", "GH_TOKEN", "COPILOT_GITHUB_TOKEN"):
        env.env.pop(name, None)
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(
        command: str,
        install: tuple[str, ...] = (),
        prepare: Callable[[], None] | None = None,
        ready_file: Path | None = None,
        started: Callable[[], None] | None = None,
        before_run: Callable[[], None] | None = None,
    ) -> Run:
        """One `copilot -p` whose model runs ``command``, with the bridge installed (``install``: more install
        options) and uninstalled after; ``prepare()`` runs before the daemon starts, ``started()`` once it runs,
        ``before_run()`` just before Copilot starts; with ``ready_file`` the model asks for the command only once
        that file exists."""
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        env.env["COPILOT_PROVIDER_BASE_URL"] = f"http://127.0.0.1:{port_file.read_text()}/v1"
        if prepare is not None:
            prepare()
        daemon = daemon_factory()
        if started is not None:
            started()
        hooks_dir = project / ".github" / "hooks" if "--project" in install else env.home / ".copilot" / "hooks"
        before = sorted(p.name for p in hooks_dir.iterdir()) if hooks_dir.is_dir() else None
        installed = subprocess.run(
            [*env.command, "bridge", "install", "copilot", *install], cwd=project, env=env.env, capture_output=True, text=True, timeout=120
        )
        assert installed.returncode == 0, installed.stdout + installed.stderr
        hook_file = json.loads((hooks_dir / "hookd.json").read_text())
        [pre] = hook_file["hooks"]["preToolUse"]
        # The shim posting to the daemon's /copilot/ endpoint, giving up 12 s before Copilot's 600 s would.
        assert "claude-shim preToolUse " in pre["bash"] and " --agent copilot --timeout 588" in pre["bash"], pre
        assert pre["timeoutSec"] == 600
        if before_run is not None:
            before_run()
        if "--fail-closed" in install:
            # Doctor's canary first: a tool call through the installed hook, answered by hookd as copilot's own shell.
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
            [row] = [r for r in report["agents"] if r["agent"] == "copilot"]
            assert row["fail_closed"] and row["problems"] == [] and row["how"][0].endswith("claude-shim"), row
            [canary] = [c for c in report["checks"] if c["name"] == "copilot" and "canary" in c["message"]]
            assert canary["status"] == "ok", report["checks"]
            daemon.stop()
        argv = [str(binary), "-p", "Run the command.", "--allow-all-tools"]
        done = subprocess.run(argv, cwd=project, env=env.env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        removed = subprocess.run(
            [*env.command, "bridge", "uninstall", "copilot", *[o for o in install if o == "--project"]],
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


def session_of(output: str) -> str:
    [line] = [x for x in output.splitlines() if "copilot --resume=" in x]
    return line.split("copilot --resume=")[1].strip()


def test_a_global_guard_stops_rm_rf_in_copilot(copilot) -> None:  # type: ignore[no-untyped-def]
    env, project, run = copilot
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}")
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    told = result.tool_results()
    assert told == ["Denied by preToolUse hook: no recursive force delete"], (told, result.output)
    session = session_of(result.output)
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "no-rm-rf"
    assert call["session"] == session and call["project"] == str(project)
    assert call["payload"]["args"] == {"command": f"rm -rf {victim}", "description": "run it"}
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "bash"
    assert call["payload"]["agent"] == "copilot"
    assert call["payload"]["hookInput"]["hook_event_name"] == "preToolUse"
    # The session's other events reached hookd under the same session, which the bridge attached and disposed.
    [prompt] = journal(env, "chat.message", "--session", session)
    assert prompt["kind"] == "decide" and prompt["payload"]["prompt"] == "Run the command."
    assert [e["kind"] for e in journal(env, "chat.finished", "--session", session)] == ["emit"]
    internal = [e["point"] for e in journal(env, "hookd.session.*", "--session", session)]
    assert internal == ["hookd.session.attached", "hookd.session.disposed"], internal


def test_an_allow_rewrites_the_command_from_a_trusted_repository(copilot) -> None:  # type: ignore[no-untyped-def]
    env, project, run = copilot
    out = project / "out.txt"

    def trust() -> None:
        # What Copilot records when a person trusts the folder at its prompt.
        (env.home / ".copilot").mkdir(exist_ok=True)
        (env.home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(project)]}))

    result = run(f"echo original > {out}", install=("--project",), prepare=trust)
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n", result.output
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
    assert call["session"] == session_of(result.output)


def test_fail_closed_holds_with_the_daemon_down(copilot) -> None:  # type: ignore[no-untyped-def]
    _, project, run = copilot
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}", install=("--fail-closed",))
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    [told] = result.tool_results()
    assert told.startswith("Denied by preToolUse hook: hookd could not be asked (hookd is not answering on 127.0.0.1:"), told
    assert told.endswith("the hookd shim runs with --fail-closed"), told


def test_a_session_hook_attached_by_a_node_program(copilot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run = copilot
    ready = tmp_path / "ready"
    guards = ExitStack()
    guard: list[subprocess.Popen[bytes]] = []
    marker = project / "touched"

    def start() -> None:
        # The daemon starts inside run(); the Node program attaches to the Copilot session once it says its prompt.
        guard.append(guards.enter_context(node_session_guard(env.env, ready, "tool.approval.pre")))

    with guards:
        result = run(f"touch {marker}", ready_file=ready, started=start)
    assert result.returncode == 0, result.output
    assert ready.exists(), "the Node program never attached its session hook"
    assert not marker.exists()
    told = result.tool_results()
    assert told == [f"Denied by preToolUse hook: {REASON}"], (told, result.output)
    session = session_of(result.output)
    assert ready.read_text() == session
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["session"] == session
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard[0].pid}"


NO_TOUCH = """
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
if data["toolArgs"]["command"].startswith("touch "):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "touch is not allowed here"}))
"""


def test_a_copilot_hook_imported_into_hookd_runs_once_and_blocks_as_it_did(copilot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run = copilot
    hook = write_script(tmp_path / "no_touch.py", NO_TOUCH)
    seen = tmp_path / "seen.jsonl"
    mine = env.home / ".copilot" / "hooks" / "mine.json"
    original = json.dumps({"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": f"{hook} {seen}", "timeoutSec": 30}]}})

    def import_it() -> None:
        mine.parent.mkdir(parents=True)
        mine.write_text(original)
        out = env.config / "hookd" / "hooks.d" / "copilot.yaml"
        done = env.hookd("import", "copilot", str(mine), "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert "where Copilot CLI no longer reads it" in done.stderr, done.stderr
        assert "name: copilot-pre-tool-use-1" in out.read_text()

    marker = project / "touched"
    result = run(f"touch {marker}", prepare=import_it)
    assert result.returncode == 0, result.output
    assert not marker.exists()
    assert result.tool_results() == ["Denied by preToolUse hook: touch is not allowed here"], result.output
    # Copilot no longer runs it (the file moved aside); hookd ran it once, with Copilot's own hook input.
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["toolName"] == "bash" and data["toolArgs"] == {"command": f"touch {marker}", "description": "run it"}
    assert data["sessionId"] == session_of(result.output) and data["cwd"] == str(project)
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "copilot-pre-tool-use-1"
    undone = env.hookd("import", "copilot", "--undo", str(mine))
    assert undone.returncode == 0, undone.stderr
    assert mine.read_text() == original
