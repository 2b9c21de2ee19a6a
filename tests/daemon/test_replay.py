"""Replay in process: which journaled decides a replay request selects (range, since, sessions,
points, limit), that the hook is told it is a replay and observers do not run, and that replayed
calls are neither published nor counted. Real YAML, real subprocess hooks, the real journal under
the test's HOME. `hookd replay` (its text, --json, exit codes), warm workers, callbacks and plugins:
tests/integration/test_replay.py."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from hookd_client import messages as m
from hookd_client.api import expect

from ..conftest import write_script
from ..integration.test_replay import GUARD, HOOKS, OBSERVER, POINT
from .conftest import InProcess, InProcessClient


class Setup:
    def __init__(self, d: InProcess, tmp: Path) -> None:
        self.d = d
        self.c: InProcessClient = d.client()
        self.runs = tmp / "runs.jsonl"
        self.seen = tmp / "seen.jsonl"
        self.policy = tmp / "policy"
        self.policy.write_text("Bash")
        guard = write_script(tmp / "guard.py", GUARD.format(runs=str(self.runs), policy=str(self.policy)))
        observer = write_script(tmp / "observer.py", OBSERVER.format(seen=str(self.seen)))
        d.global_hooks(HOOKS.format(guard=guard, observer=observer))

    async def decide(self, tool: str, marker: str, session: str | None = None, point: str = POINT) -> str | None:
        return (await self.c.decide(point, {"toolName": tool, "marker": marker}, session=session)).decision

    async def seqs(self, point: str = POINT) -> list[int]:
        """The decide calls on ``point``, oldest first."""
        return [e.seq for e in await self.c.events([point], since="1d") if e.kind == "decide"]

    async def replay(self, **selection: Any) -> m.Replayed:
        """What the daemon answers `hookd replay` with (hookd/cli/replay.py builds the same request)."""
        return await self.c._call(m.Replay(self.c._next_id(), **selection), expect(m.Replayed))

    def lines(self, path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    async def wait_for(self, check: Any, what: str) -> Any:
        for _ in range(1200):  # a hang guard, not a speed check
            value = check()
            if value:
                return value
            await asyncio.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}")


def test_the_hook_sees_hookd_replay_and_observers_do_not_run(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> None:
        s = Setup(d, home)
        await s.decide("Bash", "orig")
        await s.wait_for(lambda: [x for x in s.lines(s.seen) if x["marker"] == "orig"], "the observer of the real call")
        (seq,) = await s.seqs()
        await s.replay(first=seq, last=seq)
        runs = [r for r in s.lines(s.runs) if r["marker"] == "orig"]
        assert [r["replay"] for r in runs] == ["", "1"]
        # A real call after the replay: once its observer has run, an observer started by the replay
        # (which ended before this call began) would have left its line too.
        await s.decide("Read", "after")
        await s.wait_for(lambda: [x for x in s.lines(s.seen) if x["marker"] == "after"], "the observer of the later call")
        assert [x["marker"] for x in s.lines(s.seen)].count("orig") == 1

    in_process(scenario, journal=True)


def test_replayed_calls_are_not_published_or_counted(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> None:
        s = Setup(d, home)
        await s.decide("Bash", "b1")
        (seq,) = await s.seqs()
        decides_before = (await s.c.status()).decides
        s.policy.write_text("nothing")
        out = await s.replay(first=seq, last=seq)
        assert out.differ == 1

        async def done() -> list[m.Event]:
            for _ in range(1200):  # a hang guard, not a speed check
                events = await s.c.events(since=seq + 1)
                if any(e.point == "hookd.replay.done" for e in events):
                    return events
                await asyncio.sleep(0.05)
            raise AssertionError("timed out waiting for hookd.replay.done on the bus")

        events = await done()
        assert [e for e in events if e.kind != "internal"] == []
        summary = next(e for e in events if e.point == "hookd.replay.done")
        assert summary.payload == {"calls": 1, "differ": 1, "unreadable": 0, "first": seq, "last": seq}
        assert (await s.c.status()).decides == decides_before

    in_process(scenario, journal=True)


def test_range_since_and_filters(in_process: Any, home: Path) -> None:
    async def scenario(d: InProcess) -> None:
        s = Setup(d, home)
        await s.decide("Bash", "a", session="s1")
        await s.decide("Bash", "b", session="s2")
        await s.decide("Read", "c", session="s1")
        await s.decide("Bash", "d", session="s2", point="tool.execute.before")  # no guard there: nothing decided
        a, b, c = await s.seqs()
        (d_,) = await s.seqs("tool.execute.before")
        s.policy.write_text("Read")
        hour = time.time() - 3600  # --since 1h

        def seqs(out: m.Replayed) -> list[int]:
            return [x.seq for x in out.calls]

        out = await s.replay(since=hour)
        assert seqs(out) == [a, b, c, d_]
        assert [x.differs for x in out.calls] == [True, True, True, False]
        assert seqs(await s.replay(first=b)) == [b, c, d_]  # b..
        assert seqs(await s.replay(last=b)) == [a, b]  # ..b
        assert seqs(await s.replay(first=c)) == [c, d_]  # --since SEQ
        assert seqs(await s.replay(since=hour, sessions=["s1"])) == [a, c]
        assert seqs(await s.replay(since=hour, points=["tool.execute.*"])) == [d_]
        out = await s.replay(since=hour, sessions=["s2"], points=["tool.execute.*"])
        assert out.differ == 0 and seqs(out) == [d_]
        out = await s.replay(since=hour, limit=2)
        assert seqs(out) == [a, b] and out.more is True
        out = await s.replay(since=hour, sessions=["nobody"])
        assert out.differ == 0 and out.calls == []

    in_process(scenario, journal=True)
