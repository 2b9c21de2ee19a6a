"""Process slots for spawned hooks: decision hooks keep a share observers can never take,
observers queue apart and are shed (counted, reported) past the queue, never a guard."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hookd_client.messages import HookSpec
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.core.chain import HookNotRun
from hookd.core.registry import CallContext, Hook
from hookd.runners.command import CommandRunner, Limits
from hookd.runners.slots import Shed, Slots

from ...conftest import write_script

CTX = CallContext("tool.approval.pre", None, None)


def test_observers_never_take_the_reserved_share_and_a_freed_slot_goes_to_a_decision_first() -> None:
    async def main() -> None:
        slots = Slots(total=4, reserved=2, observer_queue=2)
        await slots.acquire(False)
        await slots.acquire(False)
        queued = [asyncio.ensure_future(slots.acquire(False)) for _ in range(2)]
        await asyncio.sleep(0)
        assert slots.observers == 2 and slots.queued == (0, 2)
        with pytest.raises(Shed):
            await slots.acquire(False)  # the queue is full
        assert slots.shed == 1
        await slots.acquire(True)  # the reserved share is free
        await slots.acquire(True)
        waiting = asyncio.ensure_future(slots.acquire(True))  # all four slots are taken
        await asyncio.sleep(0)
        assert slots.queued == (1, 2)
        slots.release(False)  # an observer finished: the decision gets its slot, not a queued observer
        await asyncio.wait_for(waiting, 5)
        assert not any(q.done() for q in queued) and slots.used == 4
        slots.release(True)
        slots.release(True)  # observers may now run again, within their share
        await asyncio.wait_for(queued[0], 5)
        assert not queued[1].done() and slots.observers == 2
        queued[1].cancel()
        await asyncio.gather(queued[1], return_exceptions=True)
        assert slots.queued == (0, 0)

    asyncio.run(main())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["obs", "dec", "done", "cancel"]), st.integers(0, 50)), max_size=80))
def test_no_sequence_of_calls_sheds_a_decision_or_breaks_the_bounds(steps: list[tuple[str, int]]) -> None:
    async def main() -> None:
        slots = Slots(total=5, reserved=2, observer_queue=3)
        tasks: list[tuple[bool, asyncio.Task[None]]] = []
        held: list[bool] = []
        for op, n in steps:
            if op in ("obs", "dec"):
                decision = op == "dec"
                tasks.append((decision, asyncio.ensure_future(slots.acquire(decision))))
            elif op == "done" and held:
                slots.release(held.pop(n % len(held)))
            elif op == "cancel" and tasks:
                tasks[n % len(tasks)][1].cancel()
            await asyncio.sleep(0)
            for decision, task in list(tasks):
                if task.done():
                    tasks.remove((decision, task))
                    if task.cancelled():
                        continue
                    if task.exception() is not None:
                        assert isinstance(task.exception(), Shed) and not decision
                        continue
                    held.append(decision)
            assert slots.used == len(held) <= slots.total
            assert slots.observers == held.count(False) <= slots.total - slots.reserved
            assert slots.queued[1] <= 3
        # Everything held is given back: every decision still waiting gets a slot.
        while held:
            slots.release(held.pop())
            await asyncio.sleep(0)
            for decision, task in list(tasks):
                if task.done() and not task.cancelled():
                    tasks.remove((decision, task))
                    held.append(decision)
        assert all(not d for d, _ in tasks)  # only observers could still be waiting (none: all released)
        for _, task in tasks:
            task.cancel()

    asyncio.run(main())


def hook(script: Path, runner: CommandRunner, type: str, name: str) -> Hook:
    spec = HookSpec(name, "tool.approval.pre", type, str(script))  # type: ignore[arg-type]
    return Hook(name, spec.point, spec.type, "global", "", "test", runner, timeout=60, spec=spec)


def test_a_flood_of_slow_observers_is_shed_and_reported_while_a_guard_runs_at_once(tmp_path: Path) -> None:
    slow = write_script(tmp_path / "slow.py", "import time\ntime.sleep(300)\n")
    guard = write_script(tmp_path / "guard.py", 'print(\'{"decision": "deny", "reason": "guarded"}\')\n')
    shed: list[int] = []

    async def main() -> None:
        runner = CommandRunner(
            Limits(max_processes=4, reserved_for_decisions=2, observer_queue=3),
            report=lambda point, payload, session, project: shed.append(payload["shed"]),
        )
        observer = hook(slow, runner, "observer", "slow")
        calls = [asyncio.ensure_future(runner(observer, {}, CTX)) for _ in range(20)]
        await asyncio.sleep(0.2)
        shed_calls = [c for c in calls if c.done()]
        assert len(shed_calls) == 15  # 2 running, 3 queued
        for call in shed_calls:
            exc = call.exception()
            assert isinstance(exc, HookNotRun) and exc.reason == "shed" and "queued" in exc.message
        assert shed[0] == 1  # the first shed is reported at once, the rest coalesced
        answer = await asyncio.wait_for(runner(hook(guard, runner, "decision", "guard"), {}, CTX), 30)
        assert answer is not None and answer.decision == "deny"
        for call in calls:
            call.cancel()
        await asyncio.gather(*calls, return_exceptions=True)
        await asyncio.wait_for(runner.groups.settle(), 30)
        await asyncio.sleep(1.2)  # the coalesced report is flushed after its interval
        assert runner.slots.used == 0

    asyncio.run(main())
    assert sum(shed) == 15
