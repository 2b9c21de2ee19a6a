"""The event stream's content, in process: what a decide's event carries, hook failures and every
internal event shown to catch-all observers, replay by duration, history older than memory as an
explicit gap, and a bad subscription refused by name. Order, back-pressure, unsubscribing and
iterating a live stream on a socket: tests/integration/test_events.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from hookd_client import messages as m

from ..conftest import write_script
from .conftest import FakePeer, InProcess, Wire

POINT = "tool.approval.pre"


def test_decide_events_carry_the_outcome_and_the_deciding_hook(in_process: Any, home: Path) -> None:
    guard = write_script(
        home / "guard.py",
        """
        import json, sys
        json.load(sys.stdin)
        print(json.dumps({"decision": "deny", "reason": "not today"}))
        """,
    )

    async def scenario(d: InProcess) -> list[m.Event]:
        c = d.client()
        await c.attach_session("s1", [{"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": str(guard)}])
        await c.decide("tool.approval.pre", {"toolName": "bash"}, session="s1")
        await c.dispose_session("s1")
        return await c.events(["tool.*", "hookd.session.disposed"])

    decided, disposed = in_process(scenario)
    assert decided.kind == "decide" and decided.point == "tool.approval.pre" and decided.session == "s1"
    assert decided.decision == "deny" and decided.reason == "not today"
    assert decided.decided_by.name == "guard" and decided.decided_by.scope == "session"
    assert decided.duration is not None and decided.duration > 0
    assert disposed.point == "hookd.session.disposed" and disposed.kind == "internal" and disposed.session == "s1"


def test_hook_failures_are_internal_events(in_process: Any, home: Path) -> None:
    broken = write_script(home / "broken.py", "import sys\nsys.exit(3)\n")

    async def scenario(d: InProcess) -> list[m.Event]:
        c = d.client()
        await c.attach_session("s1", [{"name": "broken", "point": "custom.x", "type": "observer", "command": str(broken)}])
        await c.emit("custom.x", {}, session="s1", wait=True)
        return await c.events(["hookd.hook.*"], at_least=1)

    (ev,) = in_process(scenario)
    assert ev.point == "hookd.hook.error" and ev.session == "s1"
    assert ev.payload["hook"] == "broken" and ev.payload["point"] == "custom.x"


def test_since_duration_replays_recent_history(in_process: Any) -> None:
    async def scenario(d: InProcess) -> tuple[list[m.Event], list[m.Event]]:
        c = d.client()
        for i in range(20):
            await c.emit("custom.d", {"i": i})
        return await c.events(["custom.d"], since="1h"), await c.events(["custom.d"], since="0s")

    recent, none = in_process(scenario)
    assert [e.payload["i"] for e in recent] == list(range(20))
    assert none == []


def test_history_older_than_memory_is_an_explicit_gap(in_process: Any) -> None:
    async def scenario(d: InProcess) -> list[Any]:
        c = d.client()
        for i in range(200):
            await c.emit("custom.h", {"i": i})
        return await c.replay(["custom.h"], since=1)

    got = in_process(scenario, history=50)
    gap, events = got[0], got[1:]
    assert isinstance(gap, m.Gap) and gap.reason == "history"
    assert gap.first == 1 and gap.last == events[0].seq - 1 and gap.missed == gap.last
    assert [e.payload["i"] for e in events] == list(range(150, 200))
    assert all(isinstance(e, m.Event) for e in events)


def test_bad_subscriptions_get_clear_errors_and_the_daemon_keeps_serving(in_process: Any) -> None:
    async def scenario(d: InProcess) -> None:
        peer = FakePeer()
        peer.transport = Wire()
        reply = await d.call(m.Subscribe(d.id(), projects=["relative/path"]), peer)
        assert isinstance(reply, m.Error) and reply.code == "bad_request" and "absolute" in reply.message
        reply = await d.call(m.Subscribe(d.id(), since_seq=1, since_age=5.0), peer)
        assert isinstance(reply, m.Error) and "not both" in reply.message
        assert isinstance(await d.call(m.Subscribe(d.id(), points=["nothing.here"]), peer), m.Subscribed)
        reply = await d.call(m.Subscribe(d.id(), points=["nothing.here"]), peer)
        assert isinstance(reply, m.Error) and reply.code == "conflict"
        assert isinstance(await d.call(m.Unsubscribe(d.id()), peer), m.Done)
        reply = await d.call(m.Unsubscribe(d.id()), peer)
        assert isinstance(reply, m.Error) and reply.code == "not_found"
        with pytest.raises(ValueError, match="duration"):
            await d.client().replay(since="yesterday")
        assert (await d.client().status()).pid > 0

    in_process(scenario)


def record_and_fail(home: Path, seen: Path) -> tuple[Path, Path]:
    record = write_script(
        home / "record.py", f"import os, sys\nsys.stdin.read()\nopen({str(seen)!r}, 'a').write(os.environ['HOOKD_POINT'] + '\\n')\n"
    )
    return record, write_script(home / "fail.py", "import sys\nsys.stdin.read()\nsys.exit(1)\n")


async def until_seen(seen: Path, point: str) -> None:
    for _ in range(3000):  # a hang guard, not a speed check
        if seen.exists() and point in seen.read_text():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{point} never reached the catch-all observer")


def test_catch_all_observers_see_internal_events_without_feeding_on_their_own_failures(in_process: Any, home: Path) -> None:
    seen = home / "seen.txt"
    record, failing = record_and_fail(home, seen)

    async def scenario(d: InProcess) -> int:
        d.global_hooks(
            f"""
            hooks:
              - {{name: record, point: event, type: observer, command: {record}, enabled: true}}
              - {{name: fail, point: event, type: observer, command: {failing}, enabled: true}}
            """
        )
        c = d.client()
        await c.attach_session("s-internal")
        await until_seen(seen, "hookd.session.attached")
        await asyncio.sleep(1.0)  # long enough for a feedback loop to show
        return (await c.status()).hook_errors

    errors = in_process(scenario)
    # `fail` failed on the events it was shown (config, session attached), and its own failures were
    # published but not shown to the catch-all observers again
    assert 1 <= errors <= 5, errors
    assert "hookd.hook.error" not in seen.read_text()


def test_catch_all_observers_see_hook_errors(in_process: Any, home: Path) -> None:
    seen = home / "seen.txt"
    record, failing = record_and_fail(home, seen)

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(
            f"""
            hooks:
              - {{name: record, point: event, type: observer, command: {record}, enabled: true}}
              - {{name: broken, point: {POINT}, type: decision, command: {failing}, enabled: true}}
            """
        )
        out = await d.client().decide(POINT, {})
        await until_seen(seen, "hookd.hook.error")
        return out

    assert in_process(scenario).errors[0].hook.name == "broken"
