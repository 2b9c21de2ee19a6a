"""Every wait inside hookd ends before the calling agent gives up: a guard slower than the agent's hook
timeout, or an approval nobody answers, is cut so that the guard's on_error (a deny for a fail-closed
guard) reaches the agent, instead of the agent killing the hook, reading nothing and running the tool."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from tests.conftest import Env, write_script

from .httphooks import endpoint, status_and_body

SLOW = """
import time
time.sleep(60)
"""
ASKS = """
print('{"decision": "ask", "reason": "a person should look at this"}')
"""
PRE = {"hook_event_name": "PreToolUse", "session_id": "s1", "cwd": "/tmp", "tool_name": "Bash", "tool_input": {"command": "make"}}


def _guard(env: Env, script: Path, on_error: str = "deny") -> None:
    env.write_global_hooks(
        f"hooks:\n  - name: slow-guard\n    point: tool.approval.pre\n    type: decision\n    command: {script}\n"
        f"    timeout: 60\n    on_error: {on_error}\n    enabled: true\n"
    )


def _post(ep, hook_input: dict[str, object], timeout: str) -> tuple[int, dict[str, object]]:  # type: ignore[no-untyped-def]
    raw = ep.request(json.dumps(hook_input).encode(), "PreToolUse", headers={"X-Hookd-Timeout": timeout})
    status, body = status_and_body(raw)
    return status, json.loads(body) if body else {}


def test_a_fail_closed_guard_slower_than_the_agent_denies_in_time_over_http(env: Env, daemon_factory, tmp_path: Path) -> None:
    _guard(env, write_script(tmp_path / "slow.py", SLOW))
    ep = endpoint(daemon_factory())
    status, answer = _post(ep, PRE, "1.5")
    assert status == 200
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny", answer
    reason = specific["permissionDecisionReason"]
    assert "slow-guard" in reason and "timeout" in reason and "the agent stops waiting for the call sooner" in reason


def test_without_the_agent_s_deadline_the_guard_s_own_timeout_applies(env: Env, daemon_factory, tmp_path: Path) -> None:
    # The same guard, a call that says nothing of its deadline, with a short hook timeout: its own timeout cuts it.
    script = write_script(tmp_path / "slow.py", SLOW)
    env.write_global_hooks(
        f"hooks:\n  - name: slow-guard\n    point: tool.approval.pre\n    type: decision\n    command: {script}\n"
        "    timeout: 1\n    on_error: deny\n    enabled: true\n"
    )
    with daemon_factory().client() as c:
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "make"}})
    assert out.decision == "deny" and "no answer within 1 s" in (out.reason or "") and "agent stops waiting" not in (out.reason or "")


def test_a_guard_that_cannot_start_before_the_deadline_is_named_not_run(env: Env, daemon_factory, tmp_path: Path) -> None:
    slow = write_script(tmp_path / "slow.py", SLOW)
    env.write_global_hooks(
        f"hooks:\n  - name: first\n    point: tool.approval.pre\n    type: decision\n    command: {slow}\n    priority: 10\n"
        "    enabled: true\n"
        f"  - name: second\n    point: tool.approval.pre\n    type: decision\n    command: {slow}\n    on_error: deny\n"
        "    enabled: true\n"
    )
    with daemon_factory().client() as c:
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "make"}}, timeout=1.0)
    # The first (on_error: continue) took all the time there was; the second could not start: named, and it fails closed.
    assert [e.code for e in out.errors] == ["timeout"]
    assert [(n.hook.name, n.reason) for n in out.not_run] == [("second", "deadline")]
    assert out.decision == "deny" and out.decided_by.name == "second"


def test_an_approval_nobody_answers_ends_before_the_agent_gives_up(env: Env, daemon_factory, tmp_path: Path) -> None:
    from hookd_client.approver import AsyncApprover

    _guard(env, write_script(tmp_path / "asks.py", ASKS), on_error="continue")
    daemon = daemon_factory()
    ep = endpoint(daemon)
    joined = threading.Event()
    stop = threading.Event()

    async def approver() -> None:
        async with AsyncApprover(daemon.socket, name="away"):  # connected, never answers
            joined.set()
            while not stop.is_set():
                await asyncio.sleep(0.05)

    thread = threading.Thread(target=lambda: asyncio.run(approver()), daemon=True)
    thread.start()
    try:
        assert joined.wait(30)
        status, answer = _post(ep, PRE, "1.5")
    finally:
        stop.set()
        thread.join(30)
    assert status == 200
    specific = answer["hookSpecificOutput"]
    # The approval's own deadline is 120 s; the agent waits 1.5 s: the default (deny) answers in time.
    assert specific["permissionDecision"] == "deny" and "approval deadline expired" in specific["permissionDecisionReason"], answer


@pytest.mark.parametrize("fail_closed", [False, True])
def test_a_hung_daemon_is_given_up_on_by_the_bridge_s_own_deadline(env: Env, daemon_factory, fail_closed: bool) -> None:
    daemon = daemon_factory()
    assert daemon.proc is not None
    os.kill(daemon.proc.pid, signal.SIGSTOP)
    try:
        args = ["--timeout", "1"] + (["--fail-closed"] if fail_closed else [])
        r = env.hookd("bridge", "claude-code", *args, input=json.dumps(PRE))
    finally:
        os.kill(daemon.proc.pid, signal.SIGCONT)
    assert r.returncode == 0 and "did not answer PreToolUse within 1 s" in r.stderr, r.stderr
    if fail_closed:
        assert json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    else:
        assert r.stdout == ""


def test_the_shim_tells_hookd_how_long_it_waits(env: Env, daemon_factory, tmp_path: Path) -> None:
    from hookd.agents import shim

    built = shim.build(tmp_path / "shim")
    if built.path is None:
        pytest.skip(f"the shim was not built: {built.why}")
    _guard(env, write_script(tmp_path / "slow.py", SLOW))
    ep = endpoint(daemon_factory())
    token = str(env.state / "hookd" / "http-token")
    done = subprocess.run(
        [built.path, "PreToolUse", str(ep.port), token, "--timeout", "2"], input=json.dumps(PRE).encode(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    specific = json.loads(done.stdout)["hookSpecificOutput"]
    # hookd answered (the guard cut and failing closed), not the shim giving up on it.
    assert (
        specific["permissionDecision"] == "deny" and "the agent stops waiting for the call sooner" in specific["permissionDecisionReason"]
    )
