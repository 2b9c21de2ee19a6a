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
import os
import subprocess
import sys
import time
import tomllib
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
CODEX = HERE / "node_modules" / ".bin" / "codex"

CONFIG = """\
model = "m"
model_provider = "scripted"
check_for_update_on_startup = false

[model_providers.scripted]
name = "Scripted"
base_url = "http://127.0.0.1:{port}/v1"
wire_api = "responses"
env_key = "SCRIPTED_API_KEY"
"""

pytestmark = pytest.mark.timeout(600)


def require_codex() -> Path:
    """The CLI, or skip; in CI (``$CI`` set) a missing CLI fails instead of skipping."""
    if CODEX.exists() and os.access(CODEX, os.X_OK):
        return CODEX
    if os.environ.get("CI"):
        pytest.fail(f"the Codex CLI is missing at {CODEX}; run `npm ci` in {HERE} (make e2e-deps)")
    pytest.skip(f"the Codex CLI is not installed at {CODEX} (npm ci in {HERE})")


@dataclass
class Run:
    returncode: int
    output: str
    requests: list[dict]

    def tool_results(self) -> list[str]:
        """What Codex told the model about its tool call (the function_call_output items of later requests)."""
        out: list[str] = []
        for r in self.requests:
            for item in r["body"].get("input") or []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    output = item.get("output")
                    text = output if isinstance(output, str) else json.dumps(output)
                    if text not in out:
                        out.append(text)
        return out


@pytest.fixture
def codex(env: Env, daemon_factory, tmp_path: Path) -> Iterator:  # type: ignore[no-untyped-def]
    binary = require_codex()
    install_guards(env, tmp_path / "guards")
    codex_home = env.home / ".codex"
    codex_home.mkdir()
    env.env.update(CODEX_HOME=str(codex_home), SCRIPTED_API_KEY="unused", PATH=f"{binary.parent}:{env.env['PATH']}")
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"):
        env.env.pop(name, None)
    project = tmp_path / "project"
    project.mkdir()
    servers: list[subprocess.Popen[bytes]] = []

    def run(
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
        port_file, log_file = tmp_path / f"port{len(servers)}", tmp_path / f"requests{len(servers)}.jsonl"
        log_file.touch()
        serve = [sys.executable, str(HERE / "model_server.py"), str(port_file), str(log_file), command]
        server = subprocess.Popen([*serve, *([str(ready_file)] if ready_file else [])], env=env.env)
        servers.append(server)
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline, "the scripted model server did not start"
            time.sleep(0.02)
        config = codex_home / "config.toml"
        config.write_text(CONFIG.format(port=port_file.read_text()) + user_hooks)
        if prepare is not None:
            prepare(config)
        daemon_factory()
        if started is not None:
            started()
        original = config.read_bytes()
        if trust:
            # By default install trusts the hooks as a person does in Codex's /hooks, through Codex's app-server.
            installed = env.hookd("bridge", "install", "codex", *([] if shim else ["--no-shim"]), timeout=120)
            assert installed.returncode == 0, installed.stdout + installed.stderr
            assert "trusted through Codex" in installed.stdout, installed.stdout
            assert "trusted_hash" in config.read_text()
        else:
            installed = env.hookd("bridge", "install", "codex", "--no-trust", "--accept-untrusted", *([] if shim else ["--no-shim"]))
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
        argv = [str(binary), "exec", "--skip-git-repo-check", *bypass, "--dangerously-bypass-approvals-and-sandbox", "Run the command."]
        done = subprocess.run(argv, cwd=project, env=env.env, capture_output=True, text=True, timeout=400, stdin=subprocess.DEVNULL)
        removed = env.hookd("bridge", "uninstall", "codex")
        assert removed.returncode == 0, removed.stderr
        assert config.read_bytes() == original, "uninstall did not give back the file as it was"
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
    [line] = [x for x in output.splitlines() if x.startswith("session id: ")]
    return line.removeprefix("session id: ").strip()


def test_a_global_guard_stops_rm_rf_in_codex(codex) -> None:  # type: ignore[no-untyped-def]
    env, project, run = codex
    victim = project / "keep"
    victim.mkdir()
    (victim / "file").write_text("precious")
    result = run(f"rm -rf {victim}", trust=True)
    assert result.returncode == 0, result.output
    assert "bypass-hook-trust" not in result.output  # trusted hooks: no bypass, no warning
    assert (victim / "file").read_text() == "precious"
    told = result.tool_results()
    assert told and "no recursive force delete" in told[0], (told, result.output)
    session = session_of(result.output)
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "no-rm-rf"
    assert call["session"] == session
    assert call["payload"]["args"] == {"command": f"rm -rf {victim}"}
    assert call["payload"]["toolName"] == "execute_command" and call["payload"]["agentToolName"] == "Bash"
    assert call["payload"]["agent"] == "codex" and call["payload"]["model"] == "m" and call["payload"]["turnId"]
    assert call["payload"]["hookInput"]["hook_event_name"] == "PreToolUse"
    # The session's other events reached hookd under the same session, which the bridge attached and disposed.
    assert [e["kind"] for e in journal(env, "chat.message", "--session", session)] == ["decide"]
    assert [e["kind"] for e in journal(env, "chat.finished", "--session", session)] == ["emit"]
    internal = [e["point"] for e in journal(env, "hookd.session.*", "--session", session)]
    assert internal == ["hookd.session.attached", "hookd.session.disposed"], internal


def test_an_allow_rewrites_the_command(codex) -> None:  # type: ignore[no-untyped-def]
    env, project, run = codex
    out = project / "out.txt"
    result = run(f"echo original > {out}", shim=False)
    assert result.returncode == 0, result.output
    assert out.read_text() == "rewritten\n", result.output
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "allow" and call["decided_by"]["name"] == "rewrite-placeholder"
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


def test_a_codex_hook_imported_into_hookd_runs_once_and_blocks_as_it_did(codex, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run = codex
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

    marker = project / "touched"
    result = run(f"touch {marker}", user_hooks=user_hooks, prepare=import_it)
    assert result.returncode == 0, result.output
    assert not marker.exists()
    told = result.tool_results()
    assert told and "touch is not allowed here" in told[0], (told, result.output)
    # Codex no longer runs it (its `enabled = false`); hookd ran it once, with Codex's own hook input.
    [data] = [json.loads(line) for line in seen.read_text().splitlines()]
    assert data["hook_event_name"] == "PreToolUse" and data["turn_id"] and data["model"] == "m"
    assert data["tool_input"] == {"command": f"touch {marker}"} and data["session_id"] == session_of(result.output)
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["decided_by"]["name"] == "codex-pre-tool-use-1"
    config = env.home / ".codex" / "config.toml"
    undone = env.hookd("import", "codex", "--undo", str(config))
    assert undone.returncode == 0, undone.stderr
    assert config.read_bytes() == before[0]


def test_a_session_hook_attached_by_a_node_program(codex, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env, project, run = codex
    ready = tmp_path / "ready"
    guards = ExitStack()
    guard: list[subprocess.Popen[bytes]] = []
    marker = project / "touched"

    def start() -> None:
        # The daemon starts inside run(); the Node program attaches to the Codex session once it says its prompt.
        guard.append(guards.enter_context(node_session_guard(env.env, ready, "tool.approval.pre")))

    with guards:
        result = run(f"touch {marker}", ready_file=ready, started=start)
    assert result.returncode == 0, result.output
    assert ready.exists(), "the Node program never attached its session hook"
    assert not marker.exists()
    told = result.tool_results()
    assert told and REASON in told[0], (told, result.output)
    session = session_of(result.output)
    assert ready.read_text() == session
    [call] = [e for e in journal(env, "tool.approval.pre") if e.get("kind") == "decide"]
    assert call["decision"] == "deny" and call["session"] == session
    assert call["decided_by"]["name"] == "node-session-guard" and call["decided_by"]["scope"] == "session"
    assert call["decided_by"]["source"] == f"client:{guard[0].pid}"
