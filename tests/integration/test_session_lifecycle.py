"""Sessions are owned by a connection: what happens when it goes, caps, and memory. An attach as the
event stream publishes it, in process: tests/daemon/test_session_events.py."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hookd_client import AsyncClient, Client, HookdError, callback

from .test_daemon_restart import AGENT, POINT, command_hook, deny_script, until


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def disposals(daemon):  # type: ignore[no-untyped-def]
    """The session-disposed events on the bus, as (session, reason, hooks)."""
    with Client(daemon.socket) as c:
        events = c.subscribe(["hookd.session.disposed"], since=0, follow=False, timeout=30)
        return [(e.session, e.payload["reason"], e.payload["hooks"]) for e in events]


def test_client_killed_mid_invoke(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--session-grace", "1")
    agent = subprocess.Popen(
        [sys.executable, str(AGENT), daemon.socket, "hang", deny_script(tmp_path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert agent.stdout is not None and agent.stdout.readline().strip() == "ready"
        with Client(daemon.socket) as caller, Client(daemon.socket) as other:
            outcome: list = []
            t = threading.Thread(target=lambda: outcome.append(caller.decide(POINT, {}, session="s1")))
            t.start()
            assert agent.stdout.readline().strip() == "invoked"
            # The handler hangs; another connection is served meanwhile.
            assert other.decide(POINT, {}, session="other").decision is None
            agent.kill()
            agent.wait()
            t.join(20)
            (out,) = outcome
            # The lost handler fails at once (not at its 30 s timeout); the command hook still runs.
            assert out.decision == "deny" and out.reason == "command hook"
            assert [(e.hook.name, e.code) for e in out.errors] == [("agent-handler", "error")]
            assert "disconnected" in out.errors[0].message
            # During the grace period both hooks stay; the handler is named as not run.
            assert [e.name for e in other.explain(POINT, session="s1").decision_hooks] == ["agent-handler", "agent-command"]
            until(lambda: other.status().sessions == 0)
            assert other.decide(POINT, {}, session="s1").decision is None
            assert until(lambda: disposals(daemon)) == [("s1", "owner_gone", 2)]
    finally:
        agent.kill()
        agent.wait()


HOLDER = """
import sys, time
from hookd_client import Client
c = Client(sys.argv[1])
c.register_decision("tool.approval.pre", lambda p: {"decision": "deny", "reason": "held"},
                    session="held", name="held-guard", on_error=sys.argv[2])
print("ready", flush=True)
time.sleep(3600)
"""


def start_holder(daemon, on_error: str) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, daemon.socket, on_error], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    return holder


@pytest.mark.parametrize("on_error", ["deny", "continue"])
def test_a_guard_whose_client_died_is_named_until_its_session_ends(daemon_factory, on_error):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--no-user-hooks", "--session-grace", "600")
    holder = start_holder(daemon, on_error)
    with Client(daemon.socket) as c:
        assert c.decide(POINT, {}, session="held").reason == "held"
        holder.kill()
        holder.wait()
        # The guard cannot run while its agent is away, and every call says so.
        for _ in range(20):
            out = c.decide(POINT, {}, session="held")
            assert [(n.hook.name, n.reason) for n in out.not_run] == [("held-guard", "disconnected")], out
            assert out.decision == ("deny" if on_error == "deny" else None), out
        # The agent comes back and attaches its session afresh: the guard answers again.
        back = start_holder(daemon, on_error)
        try:
            out = c.decide(POINT, {}, session="held")
            assert out.decision == "deny" and out.reason == "held" and not out.not_run, out
        finally:
            back.kill()
            back.wait()
        assert c.dispose_session("held") >= 1
        assert c.decide(POINT, {}, session="held").not_run == []


def test_reattaching_within_the_grace_period_keeps_the_session(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--session-grace", "1")
    with Client(daemon.socket) as first:
        first.attach_session("s1", [command_hook("cmd", deny_script(tmp_path))])
    with Client(daemon.socket) as second:
        second.attach_session("s1")
        time.sleep(1.5)  # past the grace period of the first owner
        assert second.status().sessions == 1
        assert second.decide(POINT, {}, session="s1").reason == "command hook"
        assert second.dispose_session("s1") == 1
        assert second.status().sessions == 0
        assert until(lambda: disposals(daemon)) == [("s1", "disposed", 1)]


def test_session_and_hook_caps_give_clear_errors_and_touch_nothing_else(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--max-sessions", "3", "--max-hooks-per-session", "2")
    with Client(daemon.socket) as c:
        for sid in ("a", "b", "c"):
            c.register_decision(POINT, lambda p: {"decision": "deny", "reason": "ok"}, session=sid)
        with pytest.raises(HookdError) as err:
            c.attach_session("d", [callback(POINT, lambda p: None)])
        assert err.value.code == "limit_exceeded" and "3 sessions" in err.value.message
        c.register_decision(POINT, lambda p: None, session="a", priority=-1)
        with pytest.raises(HookdError) as err:
            c.register_decision(POINT, lambda p: None, session="a")
        assert err.value.code == "limit_exceeded" and "over the limit of 2" in err.value.message
        with pytest.raises(HookdError):
            c.attach_session("b", [command_hook("x", deny_script(tmp_path)), callback(POINT, lambda p: None)])
        # all-or-nothing: session b got neither hook, and the client recorded only what the daemon holds
        assert len(c.explain(POINT, session="b").decision_hooks) == 1
        assert sorted(c._book.sessions) == ["a", "b", "c"] and len(c._book.served) == 4
        assert all(c.decide(POINT, {}, session=s).reason == "ok" for s in ("a", "b", "c"))
        assert c.status().sessions == 3


def test_10000_sessions_attached_and_disposed_leave_memory_near_where_it_started(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--session-grace", "0.05")
    pid = daemon.proc.pid
    script = deny_script(tmp_path)

    async def cycle(c: AsyncClient, prefix: str, count: int, dispose: bool) -> None:
        def hooks(i: int) -> list:
            return [command_hook(f"cmd-{i}", script), callback(POINT, lambda p: None, name=f"cb-{i}")]

        await asyncio.gather(*(c.attach_session(f"{prefix}{i}", hooks(i), project=str(tmp_path / f"p{i % 10}")) for i in range(count)))
        if dispose:
            await asyncio.gather(*(c.dispose_session(f"{prefix}{i}") for i in range(count)))

    async def run(prefix: str, count: int, by_disconnect: bool) -> None:
        async with AsyncClient(daemon.socket) as c:
            await cycle(c, prefix, count, dispose=not by_disconnect)
        with Client(daemon.socket) as probe:
            await asyncio.to_thread(until, lambda: probe.status().sessions == 0)

    # Warm up to the same peak (5,000 live sessions, both ways of ending), so what follows measures retention, not the high-water mark.
    asyncio.run(run("warm-a-", 5000, by_disconnect=False))
    asyncio.run(run("warm-b-", 5000, by_disconnect=True))
    before = rss_kib(pid)
    asyncio.run(run("a-", 5000, by_disconnect=False))
    asyncio.run(run("b-", 5000, by_disconnect=True))  # disposed by the grace timer, not by a request
    after = rss_kib(pid)
    with Client(daemon.socket) as c:
        status = c.status()
        assert status.sessions == 0 and status.hooks == 0
    print(f"RSS before {before} KiB, after {after} KiB")
    assert after - before < 6 * 1024, f"RSS grew from {before} KiB to {after} KiB"
