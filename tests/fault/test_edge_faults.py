"""The edge where agents meet hookd never fails open: a deny-all guard, and generated tool calls pushed
through every way an agent reaches hookd. Not one call may come back allowed.

The calls are what an agent (a model, really) can send: any JSON value as the tool's input, strings of
any Unicode (lone UTF-16 surrogates included, which Node's JSON.stringify writes), nesting thousands of
levels deep, inputs over the frame and body limits, and bytes that are not JSON at all. The edges: the
HTTP endpoint under each agent's path (Claude Code, Qwen Code, Codex), the compiled shim, and the Python
bridges (Claude Code, Qwen Code, Codex, Gemini CLI). Then the daemon down, hung and restarting.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import HOOKD, DaemonProcess, Env, make_env
from tests.integration.httphooks import Endpoint, endpoint, status_and_body

# The guard is a shell one-liner: it runs for each of the hundreds of generated calls, and what is under test
# is the edge in front of it, not the hook's language (a Python script cost 20 ms of CPU a call, sh 2).
GUARDS = """\
hooks:
  - name: deny-all
    point: tool.approval.pre
    type: decision
    command: /bin/sh
    args: ["-c", "cat >/dev/null; echo '{\\"decision\\": \\"deny\\", \\"reason\\": \\"deny-all guard\\"}'"]
    on_error: deny
    enabled: true
"""
# Each agent's tool-call event and how its answer says deny.
EVENT = {"claude-code": "PreToolUse", "qwen": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool"}
HTTP_AGENTS = ("claude-code", "qwen", "codex")
BRIDGES = ("claude-code", "qwen", "codex", "gemini")
FRAME = 1 << 20


class World:
    def __init__(self, root: Path) -> None:
        self.env = make_env(root)
        self.env.write_global_hooks(GUARDS)
        self.daemon = DaemonProcess(self.env).start()
        self.http: Endpoint = endpoint(self.daemon)
        self.shim = _shim(self.env)


def _shim(env: Env) -> str | None:
    from hookd.agents import shim

    built = shim.build(env.root / "shim")
    return built.path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("edge"))
    yield w
    w.daemon.kill()


def denied(agent: str, out: Any) -> bool:
    """Whether an answer in ``agent``'s format stops the tool call."""
    if not isinstance(out, dict):
        return False
    if agent == "gemini":
        return out.get("decision") == "deny"
    specific = out.get("hookSpecificOutput")
    return isinstance(specific, dict) and specific.get("permissionDecision") == "deny"


def _read(stdout: bytes) -> Any:
    try:
        return json.loads(stdout) if stdout.strip() else None
    except ValueError:
        return f"not JSON: {stdout[:200]!r}"


# ------------------------------------------------------------------ inputs

_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=20,
)


def _body(agent: str, tool_input: Any) -> bytes:
    """The agent's hook input as JSON text; Python writes lone surrogates as \\uXXXX escapes, as Node does."""
    name = {"gemini": "run_shell_command", "qwen": "run_shell_command"}.get(agent, "Bash")
    data = {"hook_event_name": EVENT[agent], "session_id": "edge", "cwd": "/tmp", "tool_name": name, "tool_input": tool_input}
    return json.dumps(data).encode()


def _deep(depth: int) -> bytes:
    return b"[" * depth + b'"rm -rf /"' + b"]" * depth


@st.composite
def bodies(draw: Any, agent: str) -> bytes:
    kind = draw(st.sampled_from(["json", "command", "surrogate", "deep", "large", "junk"]))
    if kind == "json":
        return _body(agent, draw(_json))
    if kind == "command":
        return _body(agent, {"command": draw(_text), "extra": draw(_json)})
    if kind == "surrogate":
        lone = chr(draw(st.integers(0xD800, 0xDFFF)))
        return _body(agent, {"command": f"rm -rf {lone}/", "description": draw(_text) + lone})
    if kind == "deep":
        depth = draw(st.integers(900, 20_000))
        head = _body(agent, {"command": "rm -rf /", "nested": "X"})
        return head.replace(b'"X"', _deep(depth))
    if kind == "large":
        return _body(agent, {"command": "rm -rf /", "content": "x" * draw(st.integers(FRAME - 200, 2 * FRAME))})
    return draw(st.binary(max_size=200)) or b"\xff"


EXAMPLES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
SLOW_EXAMPLES = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


# -------------------------------------------------------------------- edges


@pytest.mark.parametrize("agent", HTTP_AGENTS)
def test_no_call_over_http_comes_back_allowed(world: World, agent: str) -> None:
    @EXAMPLES
    @given(bodies(agent))
    def check(body: bytes) -> None:
        raw = world.http.request(body, EVENT[agent], agent=agent)
        status, out = status_and_body(raw)
        assert status == 200 and denied(agent, _read(out)), (status, out[:300], body[:200])

    check()


def test_no_call_through_the_shim_comes_back_allowed(world: World) -> None:
    if world.shim is None:
        pytest.skip("no C compiler: the shim was not built")
    token = str(world.env.state / "hookd" / "http-token")

    @EXAMPLES
    @given(bodies("claude-code"))
    def check(body: bytes) -> None:
        done = subprocess.run(
            [world.shim, "PreToolUse", str(world.http.port), token], input=body, capture_output=True, env=world.env.env, timeout=60
        )
        assert done.returncode in (0, 2)
        assert done.returncode == 2 or denied("claude-code", _read(done.stdout)), (done.stdout[:300], done.stderr[:300], body[:200])

    check()


@pytest.mark.parametrize("agent", BRIDGES)
def test_no_call_through_a_python_bridge_comes_back_allowed(world: World, agent: str) -> None:
    @SLOW_EXAMPLES
    @given(bodies(agent))
    def check(body: bytes) -> None:
        # As install writes it: the bridge is told its event, so even bytes that are not a hook input are denied.
        command = [*HOOKD, "bridge", agent, "--event", EVENT[agent]]
        done = subprocess.run(command, input=body, capture_output=True, env=world.env.env, timeout=60)
        out = _read(done.stdout)
        assert done.returncode == 2 or denied(agent, out), (done.returncode, out, done.stderr[-300:], body[:200])

    check()


_PLUGIN_DRIVER = """
import { pathToFileURL } from "node:url";
import { readFileSync } from "node:fs";
const { HookdPlugin } = await import(pathToFileURL(process.argv[1]).href);
const hooks = await HookdPlugin({ directory: "/tmp", worktree: "/tmp" });
const text = readFileSync(0, "utf8");
let args;
try {
  args = JSON.parse(text);
} catch (err) {
  process.stdout.write(JSON.stringify({ skipped: String(err) }) + "\\n");
  process.exit(0);
}
let thrown = null;
try {
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "edge", callID: "c1" }, { args });
} catch (err) {
  thrown = String(err?.message ?? err);
}
process.stdout.write(JSON.stringify({ thrown }) + "\\n");
process.exit(0);
"""


@pytest.fixture(scope="module")
def plugin(world: World) -> str:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    done = subprocess.run([*HOOKD, "bridge", "install", "opencode"], env=world.env.env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [path] = (world.env.config / "opencode").rglob("hookd.js")
    return str(path)


@st.composite
def plugin_args(draw: Any) -> bytes:
    """opencode's tool arguments as JSON text (parsed by Node, as opencode has them): lone surrogates, deep, large."""
    kind = draw(st.sampled_from(["json", "surrogate", "deep", "large"]))
    if kind == "json":
        return json.dumps(draw(_json)).encode()
    if kind == "surrogate":
        lone = chr(draw(st.integers(0xD800, 0xDFFF)))
        return json.dumps({"command": f"rm -rf {lone}/", lone: draw(_text)}).encode()
    if kind == "deep":
        return b'{"command": "rm -rf /", "nested": ' + _deep(draw(st.integers(100, 20_000))) + b"}"
    return json.dumps({"command": "rm -rf /", "content": "x" * draw(st.integers(FRAME - 200, 2 * FRAME))}).encode()


def test_no_call_through_the_opencode_plugin_comes_back_allowed(world: World, plugin: str) -> None:
    @SLOW_EXAMPLES
    @given(plugin_args())
    def check(args: bytes) -> None:
        done = subprocess.run(
            ["node", "--input-type=module", "-e", _PLUGIN_DRIVER, plugin], input=args, capture_output=True, env=world.env.env, timeout=60
        )
        assert done.returncode == 0, done.stderr[-500:]
        result = json.loads(done.stdout.decode().strip().splitlines()[-1])
        if "skipped" in result:
            return  # Node itself cannot read it: opencode would never hold such arguments
        assert isinstance(result["thrown"], str) and result["thrown"].startswith("Blocked by hookd"), (
            result,
            done.stderr[-300:],
            args[:200],
        )

    check()


# ------------------------------------------------------ the daemon's states

ONE_CALL = {agent: _body(agent, {"command": "rm -rf /"}) for agent in BRIDGES}


@pytest.fixture
def lone(tmp_path: Path) -> Iterator[World]:
    w = World(tmp_path)
    yield w
    w.daemon.kill()


@pytest.mark.parametrize("state", ["down", "hung"])
def test_fail_closed_bridges_and_the_shim_deny_when_the_daemon_cannot_answer(lone: World, state: str) -> None:
    assert lone.daemon.proc is not None
    if state == "down":
        lone.daemon.kill()
    else:
        os.kill(lone.daemon.proc.pid, signal.SIGSTOP)
    try:
        for agent in BRIDGES:
            done = subprocess.run(
                [*HOOKD, "bridge", agent, "--fail-closed", "--timeout", "2"],
                input=ONE_CALL[agent],
                capture_output=True,
                env=lone.env.env,
                timeout=60,
            )
            assert denied(agent, _read(done.stdout)), (agent, done.stdout, done.stderr)
        if lone.shim is not None:
            token = str(lone.env.state / "hookd" / "http-token")
            done = subprocess.run(
                [lone.shim, "PreToolUse", str(lone.http.port), token, "--fail-closed", "--timeout", "2"],
                input=ONE_CALL["claude-code"],
                capture_output=True,
                timeout=60,
            )
            assert denied("claude-code", _read(done.stdout)), (done.stdout, done.stderr)
    finally:
        if state == "hung":
            os.kill(lone.daemon.proc.pid, signal.SIGCONT)


def test_no_call_comes_back_allowed_while_the_daemon_restarts(lone: World) -> None:
    """Calls through the fail-closed shim and the HTTP endpoint while the daemon stops and starts
    again, over and over: each is denied (by the guard, or by the shim because nobody answered)."""
    if lone.shim is None:
        pytest.skip("no C compiler: the shim was not built")
    token = str(lone.env.state / "hookd" / "http-token")
    answers = []
    for round_ in range(6):
        for _ in range(5):
            done = subprocess.run(
                [lone.shim, "PreToolUse", str(lone.http.port), token, "--fail-closed", "--timeout", "5"],
                input=ONE_CALL["claude-code"],
                capture_output=True,
                timeout=60,
            )
            answers.append(_read(done.stdout))
            assert denied("claude-code", answers[-1]), (round_, done.stdout, done.stderr)
        if round_ % 2:
            lone.daemon.stop()
        else:
            lone.daemon.kill()
        lone.daemon = DaemonProcess(lone.env).start()
    assert len(answers) == 30
