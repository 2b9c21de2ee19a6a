"""Every hook every install writes gives hookd a deadline strictly below the timeout the agent itself applies,
so that under --fail-closed the agent hears hookd's answer (or its deny) and never kills the hook first: read
back from the files `hookd bridge install` wrote, for every agent, every route and several timeouts. A
--timeout the agent cannot honour is refused, naming why, and nothing is written."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hookd.agents import settings_file
from hookd.agents.codex.install import SHORT_EVENTS
from hookd.agents.gemini.install import QWEN_SECONDS_LIMIT
from hookd.agents.run import SESSION_END_TIMEOUT

from ..conftest import Env

TIMEOUTS = ("2", "3", "30", "600", "1000", "3600")
HEADER = "X-Hookd-Timeout"  # the time within which the daemon must answer an HTTP hook
SESSION_END_BUDGET = 1.5  # Claude Code gives all SessionEnd hooks 1.5 s together
LONGEST = 2_147_483  # past 2**31 - 1 ms, the agents' JavaScript timers fire at once
NO_CLI = "/nonexistent/claude"  # a Claude Code whose version cannot be read: the shim guards PreToolUse


def flag(command: str, event: str = "") -> float:
    """The deadline a shim or bridge command line gives hookd (the Python bridge caps SessionEnd itself)."""
    words = shlex.split(command)
    given = float(words[words.index("--timeout") + 1])
    if event == "SessionEnd" and "bridge" in words:
        return min(given, SESSION_END_TIMEOUT)
    return given


def claude_pairs(doc: dict[str, Any], agent: str = "claude-code") -> list[tuple[str, float, float]]:
    """(event, the agent's timeout in seconds, hookd's deadline) for every hook install wrote."""
    out = []
    for event, groups in doc["hooks"].items():
        for group in groups:
            if not settings_file.is_ours(group):
                continue
            hook = group["hooks"][0]
            agent_timeout = float(hook["timeout"])
            if agent == "claude-code" and event == "SessionEnd":
                agent_timeout = min(agent_timeout, SESSION_END_BUDGET)
            if hook["type"] == "http":
                out.append((event, agent_timeout, float(hook["headers"][HEADER])))
            else:
                if agent == "qwen" and agent_timeout >= QWEN_SECONDS_LIMIT:
                    agent_timeout /= 1000  # Qwen Code reads a command hook's timeout of 1000 or more as ms
                out.append((event, agent_timeout, flag(hook["command"], event)))
    return out


def assert_below(pairs: list[tuple[str, float, float]], expected_events: int) -> None:
    assert len(pairs) == expected_events, pairs
    for event, agent_timeout, deadline in pairs:
        assert 0 < deadline < agent_timeout, (event, agent_timeout, deadline)


def install(env: Env, *args: str) -> None:
    r = env.hookd("bridge", "install", *args)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("timeout", TIMEOUTS)
@pytest.mark.parametrize("how", [(), ("--fail-closed", "--agent-cli", NO_CLI), ("--no-shim", "--fail-closed"), ("--command", "hookd")])
def test_claude_code(env: Env, tmp_path: Path, timeout: str, how: tuple[str, ...]) -> None:
    settings = tmp_path / "settings.json"
    install(env, "--settings", str(settings), "--timeout", timeout, *how)
    doc = json.loads(settings.read_text())
    assert_below(claude_pairs(doc), len(settings_file.EVENTS))
    if "--fail-closed" in how and "--command" not in how:
        [pre] = doc["hooks"]["PreToolUse"]
        assert pre["hooks"][0]["type"] == "command" and "--fail-closed" in pre["hooks"][0]["command"]


@pytest.mark.parametrize("timeout", TIMEOUTS)
@pytest.mark.parametrize("how", [(), ("--fail-closed",), ("--no-shim", "--fail-closed"), ("--command", "hookd")])
def test_qwen_code(env: Env, tmp_path: Path, timeout: str, how: tuple[str, ...]) -> None:
    from hookd.agents.gemini.install import QWEN_INSTALLED

    settings = tmp_path / "settings.json"
    install(env, "qwen", "--settings", str(settings), "--timeout", timeout, *how)
    assert_below(claude_pairs(json.loads(settings.read_text()), "qwen"), len(QWEN_INSTALLED))


@pytest.mark.parametrize("timeout", TIMEOUTS)
@pytest.mark.parametrize("how", [(), ("--fail-closed",), ("--command", "hookd")])
def test_gemini_cli(env: Env, tmp_path: Path, timeout: str, how: tuple[str, ...]) -> None:
    from hookd.agents.gemini.protocol import INSTALLED_EVENTS

    settings = tmp_path / "settings.json"
    install(env, "gemini", "--settings", str(settings), "--timeout", timeout, *how)
    doc = json.loads(settings.read_text())
    pairs = [(e, g["hooks"][0]["timeout"] / 1000, flag(g["hooks"][0]["command"])) for e, groups in doc["hooks"].items() for g in groups]
    assert_below(pairs, len(INSTALLED_EVENTS))


@pytest.mark.parametrize("timeout", TIMEOUTS)
@pytest.mark.parametrize("how", [(), ("--fail-closed",), ("--no-shim",), ("--command", "hookd")])
def test_codex(env: Env, tmp_path: Path, timeout: str, how: tuple[str, ...]) -> None:
    from hookd.agents.codex.protocol import INSTALLED_EVENTS

    config = tmp_path / "config.toml"
    install(env, "codex", "--settings", str(config), "--timeout", timeout, "--no-trust", "--accept-untrusted", *how)
    hooks = tomllib.loads(config.read_text())["hooks"]
    pairs = []
    for event, groups in hooks.items():
        [hook] = groups[0]["hooks"]
        # Codex clamps these events' hooks to 3 s whatever their timeout says.
        agent_timeout = min(float(hook["timeout"]), SHORT_EVENTS.get(event, float("inf")))
        pairs.append((event, agent_timeout, flag(hook["command"])))
    assert_below(pairs, len(INSTALLED_EVENTS))


@pytest.mark.parametrize("agent", ["claude-code", "qwen", "gemini", "codex"])
@pytest.mark.parametrize("timeout", ["1", "0", "-5", str(LONGEST + 1)])
def test_a_timeout_the_agent_cannot_honour_is_refused(env: Env, tmp_path: Path, agent: str, timeout: str) -> None:
    settings = tmp_path / "agent" / "settings"
    r = env.hookd("bridge", "install", agent, "--settings", str(settings), f"--timeout={timeout}")
    assert r.returncode == 1, r.stdout
    assert f"--timeout {timeout}:" in r.stderr and ("use at least" in r.stderr or "use at most" in r.stderr), r.stderr
    assert not (tmp_path / "agent").exists()


def test_bridge_args_cannot_set_the_deadline(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    r = env.hookd("bridge", "install", "--settings", str(settings), "--command", "hookd", "--bridge-args", "--timeout 600")
    assert r.returncode == 1 and "must not set --timeout" in r.stderr
    assert not settings.exists()
