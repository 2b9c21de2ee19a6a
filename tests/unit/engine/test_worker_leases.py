"""Leases on persistent workers: a retired worker serves the calls that hold it, then stops;
a hook that is gone never gets a worker started again; a failed worker is named, not run."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hookd_client.messages import HookSpec

from hookd.core.chain import HookNotRun
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook
from hookd.runners.command import CommandRunner
from hookd.runners.persistent import PersistentRunner
from hookd.runners.workers import WorkerLimits

from ...conftest import write_script
from ...processes import alive, gone_soon

CTX = CallContext("tool.approval.pre", "s1", None)

# Answers with its pid; writes it to argv[1] when it starts; exits with payload["exit"] if asked.
WORKER = """
import json, os, sys
open(sys.argv[1], "a").write(f"{os.getpid()}\\n")
for line in sys.stdin:
    req = json.loads(line)
    if req["payload"].get("exit") is not None:
        sys.exit(req["payload"]["exit"])
    answer = req["payload"].get("answer") or {"decision": "deny", "reason": str(os.getpid())}
    sys.stdout.write(json.dumps({"id": req["id"], "decision": answer}) + "\\n"); sys.stdout.flush()
"""


def make(tmp_path: Path, runner: PersistentRunner, name: str = "warm") -> tuple[Hook, Path]:
    script = write_script(tmp_path / "worker.py", WORKER)
    started = tmp_path / f"{name}.pids"
    spec = HookSpec(name, CTX.point, "decision", str(script), args=[str(started)], mode="persistent")  # type: ignore[call-arg]
    return Hook(name, spec.point, spec.type, "session", "s1", "session:s1", runner, timeout=30, spec=spec), started


def pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_retired_worker_serves_its_leases_then_stops(tmp_path: Path) -> None:
    async def main() -> None:
        runner = PersistentRunner(CommandRunner())
        hook, started = make(tmp_path, runner)
        runner.prune([hook])
        release = runner.lease(hook)
        assert release is not None and runner.leases() == 1
        first = await runner(hook, {}, CTX)
        runner.prune([])  # the hook is removed (session disposed, file reloaded) while a call holds it
        again = await runner(hook, {}, CTX)  # the old chain runs to its end on the same worker
        assert first is not None and again is not None and first.reason == again.reason
        (pid,) = pids(started)
        assert alive(pid)
        release()
        release()  # idempotent
        assert runner.leases() == 0
        await asyncio.sleep(0)
        await asyncio.gather(*runner.pool._stopping)
        assert not alive(pid)
        with pytest.raises(HookNotRun) as info:  # never started again for a hook that is gone
            await runner(hook, {}, CTX)
        assert info.value.reason == "not_loaded"
        assert pids(started) == [pid]
        await runner.stop_all()

    asyncio.run(main())


def test_a_call_that_reaches_a_removed_hook_without_a_lease_starts_no_worker(tmp_path: Path) -> None:
    async def main() -> None:
        runner = PersistentRunner(CommandRunner())
        hook, started = make(tmp_path, runner)
        runner.prune([hook])
        runner.revive([hook])
        runner.prune([])  # disposed before its first call reached it
        with pytest.raises(HookNotRun) as info:
            await runner(hook, {}, CTX)
        assert info.value.reason == "not_loaded" and "warm" in info.value.message
        assert pids(started) == [] and runner.pool.workers == {}
        runner.revive([hook])  # attached again with the same spec: it runs again
        assert (await runner(hook, {}, CTX)) is not None
        await runner.stop_all()

    asyncio.run(main())


def test_a_worker_started_for_a_hook_nobody_was_told_of_is_stopped_at_the_next_prune(tmp_path: Path) -> None:
    async def main() -> None:
        runner = PersistentRunner(CommandRunner())
        hook, started = make(tmp_path, runner)
        await runner(hook, {}, CTX)
        (pid,) = pids(started)
        runner.prune([])
        await asyncio.gather(*runner.pool._stopping)
        assert gone_soon(pid)
        with pytest.raises(HookNotRun):
            await runner(hook, {}, CTX)
        await runner.stop_all()

    asyncio.run(main())


def test_a_failed_worker_is_not_run_and_names_its_last_error(tmp_path: Path) -> None:
    async def main() -> None:
        runner = PersistentRunner(CommandRunner(), WorkerLimits(max_failures=2, backoff_base=0.01))
        hook, _ = make(tmp_path, runner)
        runner.prune([hook])
        for _ in range(2):
            with pytest.raises(HookFailure):
                await runner(hook, {"exit": 9}, CTX)
        with pytest.raises(HookNotRun) as info:
            await runner(hook, {}, CTX)
        assert info.value.reason == "worker_failed" and "exited with status 9" in info.value.message
        runner.revive([hook])  # a reload gives it a fresh start
        assert (await runner(hook, {}, CTX)) is not None
        await runner.stop_all()

    asyncio.run(main())


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ({"decision": "deny", "modifiedInput": {"n": 2**70}}, "does not fit in 64 bits"),
        ({"decision": "deny", "modifiedOutput": json.loads("[" * 100 + "]" * 100)}, "nested deeper than 64 levels"),
    ],
)
def test_a_worker_answer_the_wire_cannot_carry_is_a_hook_error(tmp_path: Path, answer: object, named: str) -> None:
    async def main() -> None:
        runner = PersistentRunner(CommandRunner())
        hook, _ = make(tmp_path, runner)
        runner.prune([hook])
        with pytest.raises(HookFailure) as info:
            await runner(hook, {"answer": answer}, CTX)
        assert named in info.value.message
        assert (await runner(hook, {}, CTX)) is not None  # the worker keeps serving
        await runner.stop_all()

    asyncio.run(main())


def test_a_warm_decide_holds_its_worker_until_its_chain_ends_however_it_ends(tmp_path: Path) -> None:
    # The engine's fast path for one warm hook (hookd/engine/warm.py) takes its hold itself: one
    # while the worker has the call, none once it answered, failed, or was never sent.
    from hookd_client.messages import Outcome

    from hookd.core.chain import ChainState
    from hookd.core.hooks import Plan
    from hookd.engine.engine import Engine
    from hookd.engine.warm import decide_warm

    async def main() -> list[ChainState]:
        runner = PersistentRunner(CommandRunner())
        hook, started = make(tmp_path, runner)
        runner.prune([hook])
        await runner(hook, {}, CTX)  # the worker runs: the fast path can take it
        engine, plan = Engine(), Plan(decisions=(hook,), observers=())
        ended: list[ChainState] = []

        def then(state: ChainState, took: float) -> Outcome:
            ended.append(state)
            return Outcome(1)

        answered = decide_warm(engine, plan, {}, CTX, then)
        assert answered is not None and runner.leases() == 1
        # Its one slot is taken: a second call is not sent, and holds nothing.
        assert decide_warm(engine, plan, {}, CTX, then) is None and runner.leases() == 1
        await asyncio.wait_for(answered, 30)
        assert runner.leases() == 0
        dying = decide_warm(engine, plan, {"exit": 3}, CTX, then)
        assert dying is not None and runner.leases() == 1
        await asyncio.wait_for(dying, 30)
        assert runner.leases() == 0
        (pid,) = pids(started)
        assert gone_soon(pid)
        await runner.stop_all()
        return ended

    answered, died = asyncio.run(main())
    assert answered.decision == "deny" and [r.error for r in answered.runs] == [None]
    assert [r.error for r in died.runs] == ["error"] and "exited with status 3" in (died.runs[0].message or "")


def test_a_warm_decide_is_answered_even_when_letting_its_worker_go_fails(tmp_path: Path) -> None:
    from hookd_client.messages import Outcome

    from hookd.core.hooks import Plan
    from hookd.engine.engine import Engine
    from hookd.engine.warm import decide_warm

    async def main() -> object:
        runner = PersistentRunner(CommandRunner())
        hook, _ = make(tmp_path, runner)
        runner.prune([hook])
        await runner(hook, {}, CTX)

        def broken(key: object) -> None:
            raise RuntimeError("a bug in letting go")

        runner.let_go = broken  # type: ignore[method-assign]
        reply = decide_warm(Engine(), Plan(decisions=(hook,), observers=()), {}, CTX, lambda state, took: Outcome(7, state.decision))
        assert reply is not None
        got = await asyncio.wait_for(reply, 30)
        await runner.stop_all()
        return got

    assert asyncio.run(main()) == Outcome(7, "deny")
