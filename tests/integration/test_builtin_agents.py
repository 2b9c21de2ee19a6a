"""hookd's built-in guards through every bridged agent: each agent's own shell tool call, as the agent
sends it, reaches one `builtin: default` hook and comes back denied in the agent's own answer format,
with the rule that fired named; the same tool with a harmless command goes through. A real daemon:
its HTTP endpoint (Claude Code, Qwen Code, Codex), the Python bridge (Gemini CLI) and the opencode
plugin under Node."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import HOOKD, DaemonProcess, Env, make_env
from tests.integration.httphooks import Endpoint, endpoint

GUARDS = """\
hooks:
  - name: guards
    point: tool.approval.pre
    builtin: default
    on_error: deny
    enabled: true
"""
DANGEROUS = "git reset --hard HEAD~2"
RULE = "git.reset-hard"
HARMLESS = "git status --short && ls -la"
# Each agent's shell tool as it names it, with its own argument names (its working directory included).
SHELL = {
    "claude-code": ("PreToolUse", "Bash", {}),
    "qwen": ("PreToolUse", "run_shell_command", {"directory": "/tmp/app"}),
    "codex": ("PreToolUse", "Bash", {}),
    "gemini": ("BeforeTool", "run_shell_command", {"dir_path": "/tmp/app"}),
}


class World:
    def __init__(self, root: Path) -> None:
        self.env: Env = make_env(root)
        self.env.write_global_hooks(GUARDS)
        self.daemon = DaemonProcess(self.env).start()
        self.http: Endpoint = endpoint(self.daemon)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("builtin-agents"))
    yield w
    w.daemon.kill()


def hook_input(agent: str, command: str) -> dict[str, Any]:
    event, tool, extra = SHELL[agent]
    return {
        "hook_event_name": event,
        "session_id": f"builtin-{agent}",
        "cwd": "/tmp/app",
        "tool_name": tool,
        "tool_input": {"command": command, **extra},
    }


def denial(agent: str, out: Any) -> str | None:
    """The reason of a deny in ``agent``'s answer format, or None when the answer lets the call through."""
    if not isinstance(out, dict):
        return None
    if agent == "gemini":
        return str(out.get("reason")) if out.get("decision") == "deny" else None
    specific = out.get("hookSpecificOutput")
    if isinstance(specific, dict) and specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason"))
    return None


def _json(raw: bytes) -> Any:
    return json.loads(raw) if raw.strip() else None


@pytest.mark.parametrize("agent", ["claude-code", "qwen", "codex"])
def test_each_http_agent_s_shell_call_is_denied_by_rule(world: World, agent: str) -> None:
    status, body = world.http.post(hook_input(agent, DANGEROUS), agent=agent)
    assert status == 200, body
    reason = denial(agent, _json(body))
    assert reason is not None and reason.startswith(f"{RULE}: "), body
    status, body = world.http.post(hook_input(agent, HARMLESS), agent=agent)
    assert status == 200 and denial(agent, _json(body)) is None, body


def test_gemini_s_shell_call_through_its_bridge_is_denied_by_rule(world: World) -> None:
    def bridge(command: str) -> Any:
        done = subprocess.run(
            [*HOOKD, "bridge", "gemini", "--event", "BeforeTool"],
            input=json.dumps(hook_input("gemini", command)).encode(),
            capture_output=True,
            env=world.env.env,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr[-500:]
        return _json(done.stdout)

    reason = denial("gemini", bridge(DANGEROUS))
    assert reason is not None and reason.startswith(f"{RULE}: ")
    assert denial("gemini", bridge(HARMLESS)) is None


_PLUGIN_DRIVER = """
import { pathToFileURL } from "node:url";
const { HookdPlugin } = await import(pathToFileURL(process.argv[1]).href);
const hooks = await HookdPlugin({ directory: "/tmp/app", worktree: "/tmp/app" });
const out = {};
for (const command of process.argv.slice(2)) {
  try {
    const call = { tool: "bash", sessionID: "builtin-opencode", callID: "c1" };
    await hooks["tool.execute.before"](call, { args: { command, workdir: "/tmp/app" } });
    out[command] = null;
  } catch (err) {
    out[command] = String(err?.message ?? err);
  }
}
process.stdout.write(JSON.stringify(out) + "\\n");
process.exit(0);
"""


def test_opencode_s_bash_call_through_its_plugin_is_denied_by_rule(world: World) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    done = subprocess.run([*HOOKD, "bridge", "install", "opencode"], env=world.env.env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    [plugin] = (world.env.config / "opencode").rglob("hookd.js")
    ran = subprocess.run(
        ["node", "--input-type=module", "-e", _PLUGIN_DRIVER, str(plugin), DANGEROUS, HARMLESS],
        capture_output=True,
        env=world.env.env,
        timeout=60,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr[-500:]
    thrown = json.loads(ran.stdout.strip().splitlines()[-1])
    assert thrown[HARMLESS] is None, thrown
    assert thrown[DANGEROUS].startswith("Blocked by hookd") and f"{RULE}: " in thrown[DANGEROUS], thrown


def test_every_agent_s_call_is_in_the_daemon_s_stats_under_the_rule(world: World) -> None:
    for agent in SHELL:
        if agent != "gemini":
            world.http.post(hook_input(agent, DANGEROUS), agent=agent)
    done = world.env.hookd("stats", "--json")
    assert done.returncode == 0, done.stderr
    [guards] = [h for h in json.loads(done.stdout)["hooks"] if h["hook"]["name"] == "guards"]
    assert guards["life"]["rules"].get(RULE, 0) >= 3 and guards["life"]["denies"] == guards["life"]["rules"][RULE]
    agents = {g["name"] for g in json.loads(done.stdout)["agents"]}
    assert {"claude-code", "qwen", "codex"} <= agents
