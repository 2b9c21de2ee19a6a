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
COPILOT = HERE / "node_modules" / ".bin" / "copilot"

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="session")
def copilot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where Copilot unpacks its package at first start (about 230 MB): once per test run, not per test."""
    return tmp_path_factory.mktemp("copilot-cache")


@dataclass
class Copilot:
    env: Env
    project: Path
    daemon_factory: Callable[..., DaemonProcess]

    def run(
        self,
        command: str,
        install: tuple[str, ...] = (),
        prepare: Callable[[], None] | None = None,
        ready_file: Path | None = None,
        started: Callable[[], None] | None = None,
    ) -> Run:
        """One `copilot -p` whose model runs ``command``, with the bridge installed (``install``: more install
        options) and uninstalled after; ``prepare()`` runs before the daemon starts, ``started()`` once it runs;
        with ``ready_file`` the model asks for the command only once that file exists."""
        env, project = self.env, self.project
        with model(WIRE, shell(command), ready_file) as scripted:
            env.env["COPILOT_PROVIDER_BASE_URL"] = f"{scripted.url}/v1"
            if prepare is not None:
                prepare()
            daemon = self.daemon_factory()
            if started is not None:
                started()
            hooks_dir = project / ".github" / "hooks" if "--project" in install else env.home / ".copilot" / "hooks"
            before = listing(hooks_dir)
            installed = hookd_in(env, project, "bridge", "install", "copilot", *install)
            assert installed.returncode == 0, installed.stdout + installed.stderr
            [pre] = json.loads((hooks_dir / "hookd.json").read_text())["hooks"]["preToolUse"]
            # The shim posting to the daemon's /copilot/ endpoint, giving up 12 s before Copilot's 600 s would.
            assert "claude-shim preToolUse " in pre["bash"] and " --agent copilot --timeout 588" in pre["bash"], pre
            assert pre["timeoutSec"] == 600
            if "--fail-closed" in install:
                row = canary_passes(env, project, "copilot")
                assert row["how"][0].endswith("claude-shim"), row
                daemon.stop()
            result = run_agent([COPILOT, "-p", "Run the command.", "--allow-all-tools"], scripted, project, env.env, timeout=300)
        removed = hookd_in(env, project, "bridge", "uninstall", "copilot", *[o for o in install if o == "--project"], timeout=60)
        assert removed.returncode == 0, removed.stderr
        assert listing(hooks_dir) == before, "uninstall did not leave the hooks folder as it was"
        return result


@pytest.fixture
def copilot(env: Env, daemon_factory, tmp_path: Path, copilot_cache: Path) -> Iterator[Copilot]:  # type: ignore[no-untyped-def]
    binary = require(COPILOT, None if compiler() is not None else "no C compiler: the Copilot bridge runs the compiled shim")
    install_guards(env, tmp_path / "guards")
    env.env.update(
        COPILOT_OFFLINE="true",
        COPILOT_PROVIDER_API_KEY="unused",
        COPILOT_MODEL="m",
        COPILOT_AUTO_UPDATE="false",
        XDG_CACHE_HOME=str(copilot_cache),
        PATH=on_path(binary.parent, env.env),
    )
    for name in ("COPILOT_HOME", "COPILOT_ALLOW_ALL", "GITHUB_TOKEN", "GH_TOKEN", "COPILOT_GITHUB_TOKEN"):
        env.env.pop(name, None)
    agent = Copilot(env, tmp_path / "project", daemon_factory)
    agent.project.mkdir()
    yield agent


def session_of(output: str) -> str:
    [line] = [x for x in output.splitlines() if "copilot --resume=" in x]
    return line.split("copilot --resume=")[1].strip()


def test_a_global_guard_stops_rm_rf_in_copilot(copilot: Copilot) -> None:
    env, project = copilot.env, copilot.project
    victim = precious(project)
    result = copilot.run(f"rm -rf {victim}")
    call = denied(env, result, victim, agent="copilot", tool="bash")
    assert result.tool_results() == ["Denied by preToolUse hook: no recursive force delete"], result.output
    session = session_of(result.output)
    assert call["session"] == session and call["project"] == str(project)
    assert call["payload"]["args"] == {"command": f"rm -rf {victim}", "description": "run it"}
    assert call["payload"]["hookInput"]["hook_event_name"] == "preToolUse"
    # The session's other events reached hookd under the same session, which the bridge attached and disposed.
    [prompt] = journal(env, "chat.message", "--session", session)
    assert prompt["kind"] == "decide" and prompt["payload"]["prompt"] == "Run the command."
    assert [e["kind"] for e in journal(env, "chat.finished", "--session", session)] == ["emit"]
    internal = [e["point"] for e in journal(env, "hookd.session.*", "--session", session)]
    assert internal == ["hookd.session.attached", "hookd.session.disposed"], internal


def test_an_allow_rewrites_the_command_from_a_trusted_repository(copilot: Copilot) -> None:
    env, project = copilot.env, copilot.project
    out = project / "out.txt"

    def trust() -> None:
        # What Copilot records when a person trusts the folder at its prompt.
        (env.home / ".copilot").mkdir(exist_ok=True)
        (env.home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(project)]}))

    result = copilot.run(f"echo original > {out}", install=("--project",), prepare=trust)
    call = rewritten(env, result, out)
    assert call["session"] == session_of(result.output)


def test_fail_closed_holds_with_the_daemon_down(copilot: Copilot) -> None:
    victim = precious(copilot.project)
    result = copilot.run(f"rm -rf {victim}", install=("--fail-closed",))
    assert result.returncode == 0, result.output
    assert (victim / "file").read_text() == "precious"
    [told] = result.tool_results()
    assert told.startswith("Denied by preToolUse hook: hookd could not be asked (hookd is not answering on 127.0.0.1:"), told
    assert told.endswith("the hookd shim runs with --fail-closed"), told


def test_a_session_hook_attached_by_a_node_program(copilot: Copilot, tmp_path: Path) -> None:
    env = copilot.env
    ready = tmp_path / "ready"
    marker = copilot.project / "touched"
    # The daemon starts inside run(); the Node program attaches to the Copilot session once it says its prompt.
    with LaterNodeGuard(env.env, ready) as later:
        result = copilot.run(f"touch {marker}", ready_file=ready, started=later)
    call = guarded_by_node(env, result, marker, ready, later.guard)
    assert result.tool_results() == [f"Denied by preToolUse hook: {REASON}"], result.output
    assert ready.read_text() == session_of(result.output) == call["session"]


NO_TOUCH = """
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
if data["toolArgs"]["command"].startswith("touch "):
    print(json.dumps({"permissionDecision": "deny", "permissionDecisionReason": "touch is not allowed here"}))
"""


def test_a_copilot_hook_imported_into_hookd_runs_once_and_blocks_as_it_did(copilot: Copilot, tmp_path: Path) -> None:
    env, project = copilot.env, copilot.project
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
    result = copilot.run(f"touch {marker}", prepare=import_it)
    blocked(result, marker, "touch is not allowed here")
    assert result.tool_results() == ["Denied by preToolUse hook: touch is not allowed here"], result.output
    # Copilot no longer runs it (the file moved aside); hookd ran it once, with Copilot's own hook input.
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["toolName"] == "bash" and data["toolArgs"] == {"command": f"touch {marker}", "description": "run it"}
    assert data["sessionId"] == session_of(result.output) and data["cwd"] == str(project)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "copilot-pre-tool-use-1"
    undone = env.hookd("import", "copilot", "--undo", str(mine))
    assert undone.returncode == 0, undone.stderr
    assert mine.read_text() == original
