"""hookd.workers.Worker on its own (no daemon): real worker processes, in-process event loop.

The worker manager is meant to be reused by other daemon code (plugin hosts),
so its contract is tested without any hook on top.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from hookd.runners.command import ProcessGroups
from hookd.runners.workers import Worker, WorkerFailure, WorkerLimits, WorkerPool

from ...conftest import write_script
from ...processes import alive, gone_soon

REVERSER = """
import json, sys
# Holds requests until it has two, then answers them newest first.
held = []
for line in sys.stdin:
    held.append(json.loads(line))
    if len(held) == 2:
        for req in reversed(held):
            print(json.dumps({"id": req["id"], "echo": req["n"]}), flush=True)
        held = []
"""

ECHO = """
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    if req.get("sleep"):
        time.sleep(req["sleep"])
    if req.get("raw") is not None:
        sys.stdout.write(req["raw"])
        sys.stdout.flush()
        continue
    if req.get("exit") is not None:
        sys.stderr.write("leaving on request\\n"); sys.stderr.flush()
        sys.exit(req["exit"])
    print(json.dumps({"id": req["id"], "pid": os.getpid(), "echo": req.get("n")}), flush=True)
"""


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(asyncio.wait_for(coro, 30))


def worker(script: Path, **kw: object) -> Worker:
    return Worker("test", [sys.executable, str(script)], **kw)  # type: ignore[arg-type]


def test_answers_out_of_order_are_matched_by_id(tmp_path: Path) -> None:
    script = write_script(tmp_path / "rev.py", REVERSER)

    async def main() -> list[int]:
        w = worker(script, concurrency=2)
        try:
            replies = await asyncio.gather(w.request({"n": 1}, 10), w.request({"n": 2}, 10))
            return [r["echo"] for r in replies]
        finally:
            await w.stop()

    assert run(main()) == [1, 2]


def test_concurrency_caps_what_is_outstanding(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> tuple[int, int, list[int]]:
        w = worker(script, concurrency=2)
        try:
            # Each request holds the worker long enough that the first two are still being
            # served when the worker is seen to have started them, however slowly it started.
            calls = [asyncio.ensure_future(w.request({"n": i, "sleep": 1.0}, 30)) for i in range(5)]
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 20
            while w.info().outstanding < 2 and loop.time() < deadline:
                await asyncio.sleep(0.005)
            info = w.info()
            replies = await asyncio.gather(*calls)
            return info.outstanding, info.queued, [r["echo"] for r in replies]
        finally:
            await w.stop()

    outstanding, queued, echoed = run(main())
    assert outstanding == 2
    assert queued == 3
    assert echoed == [0, 1, 2, 3, 4]


def test_a_missed_deadline_kills_the_group_and_the_next_request_restarts(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w = worker(script)
        try:
            first = (await w.request({"n": 1}, 10))["pid"]
            with pytest.raises(WorkerFailure) as info:
                await w.request({"sleep": 60}, 0.5)
            assert info.value.code == "timeout"
            again = await w.request({"n": 2}, 10)
            assert again["echo"] == 2 and again["pid"] != first
            assert w.restarts == 1 and not w.failed
            assert gone_soon(first)
        finally:
            await w.stop()

    run(main())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("hello, not json\n", "not a JSON object"),
        ('{"no": "id"}\n', "integer"),
        ("x" * 5000 + "\n", "over the cap of 1000 bytes"),
        ("y" * 5000, "over the cap of 1000 bytes"),  # no newline at all
    ],
)
def test_a_broken_stream_kills_the_worker(tmp_path: Path, raw: str, expected: str) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w = worker(script, limits=WorkerLimits(line_cap=1000))
        try:
            with pytest.raises(WorkerFailure) as info:
                await w.request({"raw": raw}, 10)
            assert expected in info.value.message
            assert (await w.request({"n": 7}, 10))["echo"] == 7
        finally:
            await w.stop()

    run(main())


def test_a_worker_that_keeps_crashing_is_marked_failed(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)
    failed: list[Worker] = []

    async def main() -> None:
        w = worker(script, limits=WorkerLimits(max_failures=3, backoff_base=0.05), on_failed=failed.append)
        messages = []
        for _ in range(3):
            with pytest.raises(WorkerFailure) as info:
                await w.request({"exit": 3}, 10)
            messages.append(info.value.message)
        assert all("exited with status 3" in m and "leaving on request" in m for m in messages)
        assert w.failed and w.info().state == "failed"
        started = w.restarts
        with pytest.raises(WorkerFailure, match="marked failed"):
            await w.request({"n": 1}, 10)
        assert w.restarts == started  # not restarted once failed
        await w.stop()

    run(main())
    assert len(failed) == 1


def test_a_good_answer_resets_the_failure_count(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w = worker(script, limits=WorkerLimits(max_failures=2, backoff_base=0.01))
        try:
            for _ in range(3):
                with pytest.raises(WorkerFailure):
                    await w.request({"exit": 1}, 10)
                assert (await w.request({"n": 1}, 10))["echo"] == 1
            assert not w.failed and w.failures == 0
        finally:
            await w.stop()

    run(main())


def test_a_missing_command_fails_clearly(tmp_path: Path) -> None:
    async def main() -> None:
        w = Worker("nope", [str(tmp_path / "does-not-exist")])
        with pytest.raises(WorkerFailure, match="not found"):
            await w.request({}, 5)

    run(main())


def test_stop_kills_the_whole_group(tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "forks.py",
        """
        import json, subprocess, sys
        child = subprocess.Popen(["sleep", "300"])
        for line in sys.stdin:
            req = json.loads(line)
            print(json.dumps({"id": req["id"], "child": child.pid}), flush=True)
        """,
    )
    groups = ProcessGroups()

    async def main() -> int:
        pool = WorkerPool()
        w = pool.get("k", lambda: Worker("forks", [sys.executable, str(script)], groups=groups))
        child = (await w.request({}, 10))["child"]
        assert groups.live
        await pool.stop_all()
        return child

    child = run(main())
    assert gone_soon(child)
    assert not groups.live


def test_pool_keep_only_stops_the_others(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        pool = WorkerPool()
        a = pool.get("a", lambda: worker(script))
        b = pool.get("b", lambda: worker(script))
        pid_a = (await a.request({}, 10))["pid"]
        pid_b = (await b.request({}, 10))["pid"]
        pool.keep_only(["a"])
        assert list(pool.workers) == ["a"]
        await asyncio.sleep(0)
        await b.stop()  # the pool stops it in the background; wait for that here
        assert gone_soon(pid_b) and alive(pid_a)
        with pytest.raises(WorkerFailure, match="stopped"):
            await b.request({}, 10)
        await pool.stop_all()
        assert not alive(pid_a)

    run(main())


def test_the_runner_names_each_hooks_worker_state(tmp_path: Path) -> None:
    from hookd_client.messages import HookSpec

    from hookd.core.hooks import HookFailure
    from hookd.core.registry import CallContext, Hook
    from hookd.runners.command import CommandRunner
    from hookd.runners.persistent import PersistentRunner

    script = write_script(tmp_path / "echo.py", ECHO)
    runner = PersistentRunner(CommandRunner())
    spec = HookSpec("w", "tool.approval.pre", "decision", sys.executable, args=[str(script)], mode="persistent")
    hook = Hook("w", "tool.approval.pre", "decision", "global", "", "test", runner, spec=spec)

    async def main() -> list[str | None]:
        states = [runner.state_of(hook)]
        # ECHO's answer is no HookDecision answer: the call fails naming why, and the worker serves on.
        with pytest.raises(HookFailure, match="unknown fields `pid`, `echo`; an answer holds only id, decision and error"):
            await runner(hook, {"n": 1}, CallContext("tool.approval.pre", None, None))
        states.append(runner.state_of(hook))
        await runner.stop_all()
        return states

    assert run(main()) == ["idle", "running"]
