"""Stats and per-hook results, in process with real YAML and real subprocess hooks: what each hook
did is counted per hook, per point and per session; each decide's event (live and in the journal)
carries its hooks' results; a daemon with stats off says so. `hookd stats` and a client's own
connection: tests/integration/test_stats.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from hookd.events import journal_files

from ..conftest import write_script
from ..stats_hooks import bash as _bash
from ..stats_hooks import by_name as _by_name
from ..stats_hooks import hooks_yaml
from .conftest import InProcess


def test_stats_count_each_hook_point_and_session(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        c = d.client()
        for command in ("rm -rf x", "rm y", "rm z", "ls", "pwd"):
            await c.decide("tool.approval.pre", _bash(command), session="s1")
        await c.decide("tool.approval.pre", {"toolName": "Read"}, session="s2")
        return await c.stats()

    stats = in_process(scenario)
    assert stats.enabled and stats.window == 300
    hooks = _by_name(stats)
    guard, broken = hooks["guard"], hooks["broken"]
    assert (guard.life.calls, guard.life.denies, guard.life.errors, guard.life.skips) == (5, 3, 0, {"match": 1})
    assert guard.life.p50 is not None and guard.life.p50 <= guard.life.p95 <= guard.life.p99 <= guard.life.max
    assert guard.recent.calls == 5 and guard.recent.denies == 3
    # The broken hook runs when the guard abstained or did not match, and is skipped after a deny.
    assert (broken.life.calls, broken.life.errors, broken.life.skips) == (3, 3, {"decided": 3})
    assert "exited with status 1" in broken.last_error and "it broke" in broken.last_error
    assert broken.last_error_time is not None
    points = {p.name: p for p in stats.points}
    assert points["tool.approval.pre"].life.calls == 6 and points["tool.approval.pre"].life.denies == 3
    sessions = {s.name: s for s in stats.sessions}
    assert (sessions["s1"].life.calls, sessions["s1"].life.denies, sessions["s2"].life.calls) == (5, 3, 1)


def test_timeouts_and_observers_are_counted(in_process: Any, home: Path) -> None:
    slow = write_script(home / "slow.py", "import time\ntime.sleep(60)\n")
    seen = write_script(home / "seen.py", "import sys\nsys.stdin.read()\n")

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(
            f"""
            hooks:
              - {{name: slow, point: tool.approval.pre, type: decision, command: {slow}, timeout: 0.5, enabled: true}}
              - {{name: seen, point: custom.ping, type: observer, command: {seen}, enabled: true}}
            """
        )
        c = d.client()
        out = await c.decide("tool.approval.pre", _bash("ls"))
        assert out.errors and out.errors[0].code == "timeout"
        await c.emit("custom.ping", {}, wait=True)
        return _by_name(await c.stats())

    hooks = in_process(scenario)
    assert (hooks["slow"].life.calls, hooks["slow"].life.errors, hooks["slow"].life.timeouts) == (1, 1, 1)
    assert hooks["slow"].last_error.startswith("timeout")
    assert (hooks["seen"].type, hooks["seen"].life.calls, hooks["seen"].life.errors) == ("observer", 1, 0)


def test_decide_events_carry_each_hooks_result_live_and_in_the_journal(in_process: Any, home: Path) -> None:
    path = home / "state" / "hookd" / "events.jsonl"

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        c = d.client()
        await c.decide("tool.approval.pre", _bash("rm -rf /"), session="s1")
        await c.decide("tool.approval.pre", _bash("ls"), session="s1")
        events = await c.events(["tool.*"])
        journaled: list[Any] = []
        for _ in range(2400):  # the journal is written off the call's path: wait for it (a hang guard, not a speed check)
            journaled = [e for e in journal_files.read(str(path)) if e.kind == "decide"] if path.exists() else []
            if len(journaled) == 2:
                break
            await asyncio.sleep(0.05)
        return events, journaled

    events, journaled = in_process(scenario, journal=True)
    denied, passed = events
    assert [(r.hook.name, r.decision, r.skipped) for r in denied.hooks] == [("guard", "deny", None), ("broken", None, "decided")]
    assert denied.hooks[0].ms is not None and denied.hooks[0].reason == "no rm"
    assert [(r.hook.name, r.error) for r in passed.hooks] == [("guard", None), ("broken", "error")]
    assert "it broke" in passed.hooks[1].message
    assert [[r.hook.name for r in e.hooks] for e in journaled] == [["guard", "broken"], ["guard", "broken"]]
    assert journaled[1].hooks[1].error == "error"


def test_stats_off(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(hooks_yaml(home))
        c = d.client()
        await c.decide("tool.approval.pre", _bash("rm a"))
        return await c.stats()

    stats = in_process(scenario, stats=False)
    assert not stats.enabled and stats.hooks == []
