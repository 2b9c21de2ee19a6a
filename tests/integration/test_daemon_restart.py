"""The daemon dies (kill -9) and comes back: clients restore their sessions and handlers."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hookd_client import AsyncClient, Client, ConnectionLost

from ..conftest import write_script

POINT = "tool.approval.pre"
AGENT = Path(__file__).with_name("agents.py")


def until(check, timeout: float = 20.0, every: float = 0.05):  # type: ignore[no-untyped-def]
    """Poll ``check`` until it returns a truthy value; a hang guard, not a speed assertion."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = check()
        except Exception:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(every)


def deny_script(tmp_path: Path, reason: str = "command hook", sleep: float = 0) -> str:
    return str(
        write_script(
            tmp_path / f"deny-{abs(hash((reason, sleep)))}.py",
            f"""
            import json, sys, time
            json.load(sys.stdin)
            time.sleep({sleep})
            print(json.dumps({{"decision": "deny", "reason": {reason!r}}}))
            """,
        )
    )


def command_hook(name: str, script: str, priority: int = 0) -> dict:
    return {"name": name, "point": POINT, "type": "decision", "command": script, "priority": priority, "enabled": True}


def test_a_serving_agent_restores_its_hooks_without_making_a_call(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    agent = subprocess.Popen(
        [sys.executable, str(AGENT), daemon.socket, "deny", deny_script(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert agent.stdout is not None and agent.stdout.readline().strip() == "ready"
        with Client(daemon.socket) as c:
            assert c.decide(POINT, {}, session="s1").reason == "agent handler (deny)"
        daemon.kill()
        second = daemon_factory()
        # The agent makes no call: it must notice the new daemon and re-attach on its own.
        with Client(second.socket) as c:
            out = until(lambda: (o := c.decide(POINT, {}, session="s1")).decision and o)
            assert out.reason == "agent handler (deny)"
            assert [e.name for e in c.explain(POINT, session="s1").decision_hooks] == ["agent-handler", "agent-command"]
            assert c.status().sessions == 1
    finally:
        agent.kill()
        agent.wait()


def test_in_flight_call_gets_connection_lost_and_the_next_decide_works(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    release = threading.Event()
    entered = threading.Event()

    def handler(payload: dict) -> dict | None:
        if payload.get("block"):
            entered.set()
            release.wait(30)
        return {"decision": "continue", "injection": "handler ran"}

    with Client(daemon.socket) as c:
        c.attach_session("s1", [command_hook("cmd", deny_script(tmp_path))])
        c.register_decision(POINT, handler, session="s1", priority=5)
        errors: list[BaseException] = []

        def blocked_call() -> None:
            try:
                c.decide(POINT, {"block": True}, session="s1")
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=blocked_call)
        t.start()
        assert entered.wait(20)
        daemon.kill()
        t.join(20)
        assert len(errors) == 1 and isinstance(errors[0], ConnectionLost) and errors[0].code == "connection_lost"
        release.set()
        daemon_factory()
        out = c.decide(POINT, {}, session="s1")
        assert out.decision == "deny" and out.reason == "command hook" and out.injection == "handler ran"


def test_a_calling_only_client_restores_on_its_next_call(daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        handle = c.register(command_hook("slow", deny_script(tmp_path, "slow hook", sleep=1.5)), session="s1")
        c.attach_session("s2", [command_hook("fast", deny_script(tmp_path, "fast hook"))])
        assert c._served is None  # no handler: no reader thread, plain round trips
        errors: list[BaseException] = []

        def slow_call() -> None:
            try:
                c.decide(POINT, {}, session="s1")
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=slow_call)
        t.start()
        time.sleep(0.5)  # the slow hook (1.5 s) is running: the call is in flight
        daemon.kill()
        t.join(20)
        assert len(errors) == 1 and isinstance(errors[0], ConnectionLost)
        daemon_factory()
        assert c.decide(POINT, {}, session="s2").reason == "fast hook"
        assert c.decide(POINT, {}, session="s1").reason == "slow hook"
        assert c.unregister(handle) == 1  # the handle the caller got still works after the restore
        assert c.decide(POINT, {}, session="s1").decision is None


def test_async_client_restores_and_keeps_serving(daemon_factory):  # type: ignore[no-untyped-def]
    daemon = daemon_factory()

    async def main() -> None:
        async with AsyncClient(daemon.socket) as c:
            entered = asyncio.Event()
            release = asyncio.Event()

            async def handler(payload: dict) -> dict:
                if payload.get("block"):
                    entered.set()
                    await release.wait()
                return {"decision": "ask", "reason": "async agent"}

            await c.register_decision(POINT, handler, session="s1")
            assert (await c.decide(POINT, {}, session="s1")).decision == "ask"
            in_flight = asyncio.ensure_future(c.decide(POINT, {"block": True}, session="s1"))
            await asyncio.wait_for(entered.wait(), 20)
            daemon.kill()
            with pytest.raises(ConnectionLost):
                await asyncio.wait_for(in_flight, 20)
            release.set()
            await asyncio.to_thread(daemon_factory)
            with Client(daemon.socket) as other:
                await asyncio.to_thread(until, lambda: other.decide(POINT, {}, session="s1").decision == "ask")
            assert (await c.decide(POINT, {}, session="s1")).reason == "async agent"

    asyncio.run(main())
