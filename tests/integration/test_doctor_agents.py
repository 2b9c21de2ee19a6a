"""`hookd doctor` proves each installed agent's path end to end: a canary tool call through exactly what the
agent would run, and a failure, naming the fix, for every way that path would let a tool call through
unguarded. Real daemons, real installs, the real shim, Node for opencode's plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.docs.test_samples import readme_hooks_file

from ..conftest import HOOKD, Env, write_script

GUARD = "block-dangerous-commands"


def doctor(env: Env, cwd: Path, environ: dict[str, str] | None = None) -> tuple[int, list[dict[str, Any]]]:
    r = subprocess.run([*HOOKD, "doctor", "--json"], env=environ or env.env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip(), r.stderr
    return r.returncode, json.loads(r.stdout)["checks"]


def of(checks: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    return [c for c in checks if c["name"] == agent]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    p = tmp_path / "project"
    p.mkdir()
    return p


def _install(env: Env, agent: str, *args: str, cwd: Path | None = None) -> None:
    r = subprocess.run([*HOOKD, "bridge", "install", agent, *args], env=env.env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("agent", ["claude-code", "qwen", "gemini", "opencode"])
def test_a_canary_tool_call_goes_through_each_agent_s_path_and_its_guard_runs(env: Env, daemon_factory, project: Path, agent: str) -> None:
    if agent == "opencode" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    _install(env, agent, "--fail-closed")
    code, checks = doctor(env, project)
    found = [c for c in of(checks, agent) if "a canary tool call" in c["message"]]
    assert len(found) == 1, checks
    [check] = found
    assert check["status"] == "ok", checks
    assert f"guards in force: '{GUARD}'" in check["message"]
    # The daemon saw it as this agent's execute_command: the journal says so.
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre")
    [event] = [json.loads(line) for line in tail.stdout.splitlines() if '"decide"' in line]
    assert event["payload"]["agent"] == agent and event["payload"]["toolName"] == "execute_command"
    assert event["session"].startswith("hookd-canary-")
    assert not [c for c in of(checks, agent) if c["status"] != "ok"], checks
    assert code == 0, checks


def test_a_stale_secret_fails_with_install_again(env: Env, daemon_factory, project: Path, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    _new_claude(env, tmp_path)
    _install(env, "claude-code", "--fail-closed")  # an HTTP hook: it sends the secret the settings hold
    token = env.state / "hookd" / "http-token"
    token.unlink()  # a new secret is made at the next start: the settings hold the old one
    daemon_factory()
    code, checks = doctor(env, project)
    [check] = [c for c in of(checks, "claude-code") if c["status"] == "fail"]
    assert code == 1 and "401" in check["message"] and "hookd bridge install claude-code" in check["fix"], check


def test_hookd_down_fails_where_the_agent_would_run_tool_calls(env: Env, project: Path) -> None:
    _install(env, "qwen")  # fails open: Qwen Code runs a tool whose HTTP hook cannot be made
    code, checks = doctor(env, project)
    [fail] = [c for c in of(checks, "qwen") if c["status"] == "fail"]
    assert code == 1 and "runs it unguarded" in fail["message"] and "start hookd" in fail["fix"], checks
    _install(env, "qwen", "--fail-closed")  # the shim on PreToolUse denies by itself: refused, not unguarded
    _, checks = doctor(env, project)
    [warn] = [c for c in of(checks, "qwen") if "does not answer" in c["message"]]
    assert warn["status"] == "warn" and "refuses tool calls until it does" in warn["message"], checks


def test_a_guard_that_cannot_run_for_the_agent_fails(env: Env, daemon_factory, project: Path) -> None:
    # The guard is the project's, and the project is not trusted: Claude Code's calls there go unguarded.
    env.env.pop("HOOKD_TRUST_ALL")
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(readme_hooks_file().split("  - name: log-llm")[0])
    daemon_factory()
    _install(env, "claude-code", "--fail-closed")
    code, checks = doctor(env, project)
    [check] = [c for c in of(checks, "claude-code") if "a canary tool call" in c["message"]]
    assert code == 1 and check["status"] == "fail" and f"'{GUARD}' did not run: untrusted" in check["message"], check


def test_no_guard_in_force_is_said(env: Env, daemon_factory, project: Path) -> None:
    daemon_factory()
    _install(env, "claude-code", "--fail-closed")
    _, checks = doctor(env, project)
    [check] = [c for c in of(checks, "claude-code") if "a canary tool call" in c["message"] or "no guard" in c["message"]]
    assert check["status"] == "warn" and "no guard is in force" in check["message"], check


def test_an_install_that_fails_open_is_named(env: Env, daemon_factory, project: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    _install(env, "qwen")
    _, checks = doctor(env, project)
    [warn] = [c for c in of(checks, "qwen") if c["status"] == "warn"]
    assert "runs tool calls unguarded" in warn["message"] and "--fail-closed" in warn["fix"], checks
    _install(env, "qwen", "--fail-closed")
    _, checks = doctor(env, project)
    assert all(c["status"] == "ok" for c in of(checks, "qwen")), checks


def test_a_command_hook_that_is_not_hookd_is_caught(env: Env, daemon_factory, project: Path, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    _install(env, "claude-code", "--command", str(tmp_path / "gone" / "hookd"))
    code, checks = doctor(env, project)
    assert code == 1 and any(c["status"] == "fail" and "exited 127" in c["message"] for c in of(checks, "claude-code")), checks
    # A command that answers without asking hookd: the agent proceeds on every call, unguarded.
    fake = write_script(tmp_path / "bin" / "hookd", "pass\n")
    _install(env, "claude-code", "--command", str(fake))
    code, checks = doctor(env, project)
    assert code == 1 and any(c["status"] == "fail" and "never saw it" in c["message"] for c in of(checks, "claude-code")), checks


def _new_claude(env: Env, tmp_path: Path) -> Path:
    """A `claude` on PATH that says it is a version honouring onFailure (install then writes HTTP hooks)."""
    bin_dir = tmp_path / "claude-bin"
    claude = write_script(bin_dir / "claude", "print('2.1.332 (Claude Code)')\n")
    env.env["PATH"] = f"{bin_dir}{os.pathsep}{env.env['PATH']}"
    return claude


def test_a_claude_code_that_ignores_on_failure_is_named(env: Env, daemon_factory, project: Path, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    claude = _new_claude(env, tmp_path)
    _install(env, "claude-code", "--fail-closed")  # a version that honours onFailure: HTTP with onFailure block
    _, checks = doctor(env, project)
    assert all(c["status"] == "ok" for c in of(checks, "claude-code")), checks
    write_script(claude, "print('2.1.197 (Claude Code)')\n")  # then the user's Claude Code is an older one
    code, checks = doctor(env, project)
    [fail] = [c for c in of(checks, "claude-code") if c["status"] == "fail"]
    assert code == 1 and "2.1.197" in fail["message"] and "onFailure" in fail["message"], fail


def test_codex_hooks_not_trusted_are_named(env: Env, daemon_factory, project: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    _install(env, "codex", "--no-trust", "--accept-untrusted", "--fail-closed")
    code, checks = doctor(env, project)
    [fail] = [c for c in of(checks, "codex") if c["status"] == "fail"]
    assert code == 1 and "Codex has not trusted" in fail["message"], checks
    # The path itself works: the canary reached hookd as Codex's execute_command.
    assert any(c["status"] == "ok" and "a canary tool call" in c["message"] for c in of(checks, "codex")), checks


def test_bridge_status_lists_each_install_and_checks_it(env: Env, daemon_factory, project: Path, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    _new_claude(env, tmp_path)
    _install(env, "claude-code", "--fail-closed")
    _install(env, "gemini")
    r = subprocess.run(
        [*HOOKD, "bridge", "status", "--json", "--check"], env=env.env, cwd=project, capture_output=True, text=True, timeout=120
    )
    report = json.loads(r.stdout)
    agents = {row["agent"]: row for row in report["agents"]}
    assert set(agents) == {"claude-code", "gemini"} and report["ok"] and r.returncode == 0, report
    assert agents["claude-code"]["fail_closed"] and not agents["gemini"]["fail_closed"]
    assert any(how.startswith("HTTP http://127.0.0.1:") for how in agents["claude-code"]["how"])
    assert {c["name"] for c in report["checks"] if "a canary tool call" in c["message"]} == {"claude-code", "gemini"}
    text = subprocess.run([*HOOKD, "bridge", "status"], env=env.env, cwd=project, capture_output=True, text=True, timeout=60)
    assert "fails open when hookd is down" in text.stdout and "fail-closed" in text.stdout, text.stdout
