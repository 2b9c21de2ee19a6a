"""The engine's side of guard health: a hook that cannot run is named (not_run) with its on_error
policy applied, and every lease a call takes is released however the call ends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hookd_client.messages import Decision, HookRef

from hookd.core.chain import HookNotRun
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import Engine

CTX = CallContext("tool.approval.pre", "s1", None)


class Served:
    """A runner that owns a process (as a persistent worker or a plugin host does): it counts the holds on it."""

    def __init__(self, answer: Any = None) -> None:
        self.answer = answer
        self.holds = 0
        self.taken = 0
        self.started = asyncio.Event()

    def lease(self, hook: Hook):  # type: ignore[no-untyped-def]
        self.holds += 1
        self.taken += 1
        released = False

        def release() -> None:
            nonlocal released
            assert not released, "released twice"
            released = True
            self.holds -= 1

        return release

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        self.started.set()
        if isinstance(self.answer, BaseException):
            raise self.answer
        if self.answer == "hang":
            await asyncio.sleep(3600)
        return self.answer


def hook(name: str, runner: Any, *, kind: str = "decision", on_error: str = "continue") -> Hook:
    return Hook(name, "tool.approval.pre", kind, "global", "", f"/f/{name}", runner, on_error=on_error, timeout=30)  # type: ignore[arg-type]


@pytest.mark.parametrize("on_error", ["deny", "ask"])
def test_a_runner_that_cannot_run_a_fail_closed_guard_decides_by_its_policy(on_error):
    later = Served(Decision(decision="allow"))
    plan = Plan((hook("guard", Served(HookNotRun("worker_failed", "the worker gave up")), on_error=on_error), hook("later", later)), ())
    state = asyncio.run(Engine().decide(plan, {}, CTX))
    out = state.outcome(1)
    assert out.decision == on_error and out.decided_by.name == "guard"
    assert [(n.hook.name, n.reason) for n in out.not_run] == [("guard", "worker_failed")]
    assert out.errors == [] and not later.started.is_set()


def test_a_runner_that_cannot_run_a_lenient_hook_is_named_and_the_chain_goes_on():
    plan = Plan((hook("a", Served(HookNotRun("plugin_failed", "host down"))), hook("b", Served(Decision(decision="deny")))), ())
    out = asyncio.run(Engine().decide(plan, {}, CTX)).outcome(1)
    assert out.decision == "deny" and [(n.hook.name, n.reason) for n in out.not_run] == [("a", "plugin_failed")]


def test_the_plans_not_run_entries_come_first_and_untrusted_never_decides():
    untrusted = hook("mine", Served("never"), on_error="deny")
    plan = Plan(
        (hook("g", Served(None)),),
        (),
        not_run=((untrusted, "untrusted", "not trusted"), (HookRef("*", "global", "/g.yaml"), "invalid_file", "rejected")),
    )
    out = asyncio.run(Engine().decide(plan, {}, CTX)).outcome(1)
    assert out.decision is None
    assert [(n.hook.name, n.reason) for n in out.not_run] == [("mine", "untrusted"), ("*", "invalid_file")]


def test_leases_are_held_for_the_whole_call_and_released_after_it():
    async def main() -> None:
        engine = Engine()
        guard, observer = Served(None), Served(None)
        plan = Plan((hook("guard", guard),), (hook("obs", observer, kind="observer"),))
        leases = engine.lease(plan)
        assert guard.holds == 1 and observer.holds == 1  # taken when the plan is snapshotted
        await engine.decide(plan, {}, CTX, leases)
        assert guard.holds == 0
        await engine.drain_observers(10)
        assert observer.holds == 0 and observer.taken == 1

    asyncio.run(main())


def test_leases_are_released_when_the_call_is_cancelled():
    async def main() -> None:
        engine = Engine()
        guard, observer = Served("hang"), Served(None)
        plan = Plan((hook("guard", guard),), (hook("obs", observer, kind="observer"),))
        task = asyncio.ensure_future(engine.decide(plan, {}, CTX, engine.lease(plan)))
        await guard.started.wait()
        assert guard.holds == 1 and observer.holds == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert guard.holds == 0 and observer.holds == 0

    asyncio.run(main())


def test_an_emits_observers_each_hold_a_lease_until_they_end():
    async def main() -> None:
        engine = Engine()
        slow = Served("hang")
        plan = Plan((), (hook("slow", slow, kind="observer"),))
        (task,) = engine.emit(plan, {}, CTX)
        await slow.started.wait()
        assert slow.holds == 1
        task.cancel()
        await asyncio.wait([task])
        await asyncio.sleep(0)
        assert slow.holds == 0

    asyncio.run(main())
