"""Codex end to end: the real CLI (`codex exec`), offline, against a scripted Responses API, with hookd's bridge.

The CLI is this directory's `@openai/codex` (`npm ci` here: a native binary in a platform package). Its
CODEX_HOME is in the test's HOME; config.toml there points a provider at the scripted server on 127.0.0.1
(`wire_api = "responses"`), and `hookd bridge install codex` adds the hooks. Codex runs hooks only once the
user trusted them: install trusts them by default, as a person would in Codex's /hooks (through Codex's
app-server, found on PATH as a user's shell has it); the tests that opt out (`--no-trust --accept-untrusted`)
pass `--dangerously-bypass-hook-trust` as automation would. All pass
`--dangerously-bypass-approvals-and-sandbox` so that nothing but the hook stands between the model's command
and the machine (the command would run if the hook let it).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hookd.agents.shim import compiler
from tests.conftest import DaemonProcess, Env, write_script
from tests.e2e.guards import install_guards
from tests.e2e.harness import Run, blocked, decides, denied, guarded_by_node, journal, model, precious, require, rewritten, run_agent
from tests.e2e.scripted import on_path
from tests.e2e.session_guard import LaterNodeGuard

from .model_server import WIRE, shell

HERE = Path(__file__).resolve().parent
CODEX = HERE / "node_modules" / ".bin" / "codex"

CONFIG = """\
model = "m"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "Scripted"
base_url = "{url}/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
"""

pytestmark = pytest.mark.timeout(600)


@dataclass
class Codex:
    env: Env
    project: Path
    home: Path  # CODEX_HOME
    daemon_factory: Callable[..., DaemonProcess]

    def run(
        self,
        command: str,
        trust: bool = False,
        user_hooks: str = "",
        prepare: Callable[[Path], None] | None = None,
        shim: bool = True,
        ready_file: Path | None = None,
        started: Callable[[], None] | None = None,
    ) -> Run:
        """One `codex exec` whose model runs ``command``; ``user_hooks`` (TOML) are the user's own Codex hooks,
        ``prepare(config)`` runs before the daemon starts and the bridge is installed, ``started()`` once the
        daemon runs, and with ``ready_file`` the model asks for the command only once that file exists."""
        env = self.env
        config = self.home / "config.toml"
        with model(WIRE, shell(command), ready_file) as scripted:
            config.write_text(CONFIG.format(url=scripted.url) + user_hooks)
            if prepare is not None:
                prepare(config)
            self.daemon_factory()
            if started is not None:
                started()
            original = config.read_bytes()
            no_shim = [] if shim else ["--no-shim"]
            if trust:
                # By default install trusts the hooks as a person does in Codex's /hooks, through Codex's app-server.
                installed = env.hookd("bridge", "install", "codex", *no_shim, timeout=120)
                assert installed.returncode == 0, installed.stdout + installed.stderr
                assert "trusted through Codex" in installed.stdout, installed.stdout
                assert "trusted_hash" in config.read_text()
            else:
                installed = env.hookd("bridge", "install", "codex", "--no-trust", "--accept-untrusted", *no_shim)
                assert installed.returncode == 0, installed.stderr
                assert "NOT trusted" in installed.stderr and "--dangerously-bypass-hook-trust" in installed.stderr
            # The compiled shim posting to the daemon's /codex/ endpoint (where a C compiler exists), or the Python bridge.
            shimmed = shim and compiler() is not None
            command_of = tomllib.loads(config.read_text())["hooks"]["PreToolUse"][-1]["hooks"][0]["command"]
            # Each gives up 12 s before Codex's 600 s would kill it.
            wanted = ("claude-shim PreToolUse ", " --agent codex") if shimmed else (" bridge codex", " bridge codex --event PreToolUse")
            wanted = (wanted[0], wanted[1] + " --timeout 588")
            assert wanted[0] in command_of and command_of.endswith(wanted[1]), command_of
            bypass = [] if trust else ["--dangerously-bypass-hook-trust"]
            argv = [CODEX, "exec", "--skip-git-repo-check", *bypass, "--dangerously-bypass-approvals-and-sandbox", "Run the command."]
            result = run_agent(argv, scripted, self.project, env.env)
        removed = env.hookd("bridge", "uninstall", "codex")
        assert removed.returncode == 0, removed.stderr
        assert config.read_bytes() == original, "uninstall did not give back the file as it was"
        return result


@pytest.fixture
def codex(env: Env, daemon_factory, tmp_path: Path) -> Iterator[Codex]:  # type: ignore[no-untyped-def]
    binary = require(CODEX)
    install_guards(env, tmp_path / "guards")
    agent = Codex(env, tmp_path / "project", env.home / ".codex", daemon_factory)
    agent.home.mkdir()
    env.env.update(CODEX_HOME=str(agent.home), SCRIPTED_API_KEY="unused", PATH=on_path(binary.parent, env.env))
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.env.pop(name, None)
    agent.project.mkdir()
    yield agent


def session_of(output: str) -> str:
    [line] = [x for x in output.splitlines() if x.startswith("session id: ")]
    return line.removeprefix("session id: ").strip()


def test_a_global_guard_stops_rm_rf_in_codex(codex: Codex) -> None:
    env = codex.env
    victim = precious(codex.project)
    result = codex.run(f"rm -rf {victim}", trust=True)
    assert "bypass-hook-trust" not in result.output  # trusted hooks: no bypass, no warning
    call = denied(env, result, victim, agent="codex", tool="Bash")
    session = session_of(result.output)
    assert call["session"] == session
    assert call["payload"]["args"] == {"command": f"rm -rf {victim}"}
    assert call["payload"]["model"] == "m" and call["payload"]["turnId"]
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    # The session's other events reached hookd under the same session, which the bridge attached and disposed.
    assert [e["kind"] for e in journal(env, "chat.message", "--session", session)] == ["decide"]
    assert [e["kind"] for e in journal(env, "chat.finished", "--session", session)] == ["emit"]
    internal = [e["point"] for e in journal(env, "hookd.session.*", "--session", session)]
    assert internal == ["hookd.session.attached", "hookd.session.disposed"], internal


def test_an_allow_rewrites_the_command(codex: Codex) -> None:
    out = codex.project / "out.txt"
    result = codex.run(f"echo original > {out}", shim=False)
    call = rewritten(codex.env, result, out)
    assert call["session"] == session_of(result.output)


NO_TOUCH = """
import json, sys
data = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(data) + "\\n")
if data["tool_input"]["command"].startswith("touch "):
    print("touch is not allowed here; the user keeps this directory read-only", file=sys.stderr)
    sys.exit(2)
"""


def test_a_codex_hook_imported_into_hookd_runs_once_and_blocks_as_it_did(codex: Codex, tmp_path: Path) -> None:
    env = codex.env
    hook = write_script(tmp_path / "no_touch.py", NO_TOUCH)
    seen = tmp_path / "seen.jsonl"
    user_hooks = f"""
[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{hook} {seen}"
timeout = 30
"""
    before: list[bytes] = []

    def import_it(config: Path) -> None:
        before.append(config.read_bytes())
        out = env.config / "hookd" / "hooks.d" / "codex.yaml"
        done = env.hookd("import", "codex", str(config), "-o", str(out))
        assert done.returncode == 0, done.stderr
        assert "turned them off in Codex" in done.stderr, done.stderr
        assert "name: codex-pre-tool-use-1" in out.read_text()

    marker = codex.project / "touched"
    result = codex.run(f"touch {marker}", user_hooks=user_hooks, prepare=import_it)
    blocked(result, marker, "touch is not allowed here")
    # Codex no longer runs it (its `enabled = false`); hookd ran it once, with Codex's own hook input.
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["hook_event_name"] == "PreToolUse" and data["turn_id"] and data["model"] == "m"
    assert data["tool_input"] == {"command": f"touch {marker}"} and data["session_id"] == session_of(result.output)
    [call] = decides(env)
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "codex-pre-tool-use-1"
    config = codex.home / "config.toml"
    undone = env.hookd("import", "codex", "--undo", str(config))
    assert undone.returncode == 0, undone.stderr
    assert config.read_bytes() == before[0]


def test_a_session_hook_attached_by_a_node_program(codex: Codex, tmp_path: Path) -> None:
    env = codex.env
    ready = tmp_path / "ready"
    marker = codex.project / "touched"
    # The daemon starts inside run(); the Node program attaches to the Codex session once it says its prompt.
    with LaterNodeGuard(env.env, ready) as later:
        result = codex.run(f"touch {marker}", ready_file=ready, started=later)
    call = guarded_by_node(env, result, marker, ready, later.guard)
    assert ready.read_text() == session_of(result.output) == call["session"]
