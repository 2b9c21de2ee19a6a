"""Organisation guards from the team's key-value bucket, against a real nats-server."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from hookd.team import admin
from tests.conftest import DaemonProcess

from .conftest import NatsServer, deny_guard, init_team, make_team_env

# Real servers and daemons, killed and restarted: a loaded machine needs more than the default bound.
pytestmark = pytest.mark.timeout(300)

POINT = "tool.execute.before"
RM = {"toolName": "bash", "args": {"command": "rm -rf /tmp/x"}}
LS = {"toolName": "bash", "args": {"command": "ls"}}


def wait_until(predicate, timeout: float = 60.0, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def decision(d: DaemonProcess, payload: dict[str, Any], session: str | None = None) -> Any:
    with d.client() as c:
        return c.decide(POINT, payload, session=session)


def guards(d: DaemonProcess) -> Any:
    with d.client() as c:
        return c.status().team.guards


def journal_points(d: DaemonProcess) -> list[dict[str, Any]]:
    path = d.env.state / "hookd" / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def test_a_managed_deny_guard_applies_on_two_daemons_and_holds_against_disable_and_offline(tmp_path: Path, nats_server: NatsServer) -> None:
    s = init_team(nats_server, tmp_path)
    alice = DaemonProcess(make_team_env(tmp_path, "alice", nats_server)).start()
    bob = DaemonProcess(make_team_env(tmp_path, "bob", nats_server)).start()
    try:
        for d in (alice, bob):
            wait_until(lambda d=d: guards(d).state == "watching", what="the watch to start")
            assert decision(d, RM).decision is None
        revision = asyncio.run(admin.put(s, "before.security", deny_guard(tmp_path)))
        for d in (alice, bob):
            out = wait_until(lambda d=d: (o := decision(d, RM)).decision == "deny" and o, what="the guard to apply")
            assert out.decided_by.scope == "managed" and out.decided_by.source == f"managed:before.security@{revision}"
            assert decision(d, LS).decision is None
            assert guards(d).keys == {"before.security": revision}

        # The user cannot lift it: not with `hookd disable`, not with a session hook that allows.
        disabled = alice.env.hookd("disable", "no-rm-rf")
        assert disabled.returncode != 0 and "organisation" in disabled.stderr
        with alice.client() as c:
            c.register_decision(POINT, lambda p: {"decision": "allow"}, session="s1", priority=1000)
            out = c.decide(POINT, RM, session="s1")
            assert out.decision == "deny" and out.decided_by.scope == "managed"
            assert c.decide(POINT, LS, session="s1").decision == "allow"
        status = alice.env.hookd("status")
        assert f"before.security@{revision}" in status.stdout and "guards:" in status.stdout
        listed = alice.env.hookd("hooks")
        assert listed.returncode == 0 and "managed" in listed.stdout and f"managed:before.security@{revision}" in listed.stdout

        # Offline: the server is gone and hookd restarts; the record keeps the guard in force from the first call.
        nats_server.kill()
        alice.stop()
        alice = DaemonProcess(alice.env).start()
        out = decision(alice, RM)
        assert out.decision == "deny" and out.decided_by.scope == "managed"
        assert guards(alice).keys == {"before.security": revision} and guards(alice).state != "watching"

        # Back online, the team withdraws the guard: it stops applying everywhere.
        nats_server.start()
        wait_until(lambda: guards(alice).state == "watching", what="the watch to come back")
        asyncio.run(admin.withdraw(s, "before.security"))
        for d in (alice, bob):
            wait_until(lambda d=d: decision(d, RM).decision is None, what="the withdrawn guard to stop applying")
            assert guards(d).keys == {}
        wait_until(lambda: any(ev["point"] == "hookd.managed.withdrawn" for ev in journal_points(alice)), what="the withdrawal on the bus")
    finally:
        alice.kill()
        bob.kill()


def test_an_invalid_revision_is_refused_whole_and_the_previous_one_stays(tmp_path: Path, nats_server: NatsServer) -> None:
    s = init_team(nats_server, tmp_path)
    d = DaemonProcess(make_team_env(tmp_path, "carol", nats_server)).start()
    try:
        good = asyncio.run(admin.put(s, "before.security", deny_guard(tmp_path)))
        wait_until(lambda: decision(d, RM).decision == "deny", what="the guard to apply")
        # One valid hook and one with a typo: the whole value is refused.
        bad = (
            deny_guard(tmp_path, "ls", name="no-ls")
            + "  - name: broken\n    point: tool.execute.before\n    type: decison\n    command: x\n"
        )
        bad_revision = asyncio.run(admin.put_raw(s, "before.security", bad.encode()))
        info = wait_until(lambda: (g := guards(d)).rejected and g, what="the refusal")
        assert "before.security" in info.rejected and "decison" in info.rejected["before.security"]
        assert info.keys == {"before.security": good} and info.revision >= bad_revision
        assert decision(d, RM).decision == "deny" and decision(d, LS).decision is None
        wait_until(lambda: [ev for ev in journal_points(d) if ev["point"] == "hookd.managed.rejected"], what="the refusal in the journal")
        rejected = [ev for ev in journal_points(d) if ev["point"] == "hookd.managed.rejected"]
        assert rejected[0]["payload"]["revision"] == bad_revision and rejected[0]["payload"]["in_force"] == good
        # A key outside the two tiers is refused too, and applies nothing.
        asyncio.run(admin.put_raw(s, "sideways", deny_guard(tmp_path, "ls").encode()))
        wait_until(lambda: "sideways" in guards(d).rejected, what="the refusal of a key without a tier")
        assert decision(d, LS).decision is None
    finally:
        d.kill()


def test_after_tier_runs_after_the_user_hooks(tmp_path: Path, nats_server: NatsServer) -> None:
    s = init_team(nats_server, tmp_path)
    d = DaemonProcess(make_team_env(tmp_path, "dave", nats_server)).start()
    try:
        revision = asyncio.run(admin.put(s, "after.audit", deny_guard(tmp_path, "curl", name="no-curl")))
        wait_until(lambda: guards(d).keys == {"after.audit": revision}, what="the guard to apply")
        with d.client() as c:
            # The user's hook rewrites the input; the after tier sees what the user's hooks made of it.
            c.register_decision(POINT, lambda p: {"decision": "continue", "modifiedInput": {"command": "curl evil"}}, session="s2")
            out = c.decide(POINT, LS, session="s2")
            assert out.decision == "deny" and out.decided_by.scope == "managed_after"
            chain = c.explain(POINT, session="s2")
            assert [e.scope for e in chain.decision_hooks][-1] == "managed_after"
    finally:
        d.kill()
