"""Worker.send, the fast path of a request to a warm worker: sent at once when the worker runs and
has a free slot, its deadline watched by the worker's one timer. Real worker processes.

What it must keep from Worker.request: a missed deadline fails the request as a timeout and kills
the worker, a cancelled caller kills it too, the slot always comes back, and an answered request
is never touched by a deadline left from another.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from hookd.runners.workers import Worker, WorkerFailure, _Slots

from ...conftest import write_script
from ...processes import gone_soon

ECHO = """
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    if req.get("sleep"):
        time.sleep(req["sleep"])
    print(json.dumps({"id": req["id"], "pid": os.getpid(), "echo": req.get("n")}), flush=True)
"""


def run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(asyncio.wait_for(coro, 60))


def echo(reply: dict[str, Any]) -> Any:
    return reply["echo"]


async def started(script: Path, concurrency: int = 1) -> tuple[Worker, int]:
    w = Worker("test", [sys.executable, str(script)], concurrency=concurrency)
    assert w.send({"n": 0}, 10, echo) is None  # not running yet: the general path starts it
    pid = (await w.request({"n": 0}, 30))["pid"]
    return w, pid


def test_a_running_worker_answers_at_once_and_keeps_serving(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w, pid = await started(script)
        try:
            for n in range(1, 30):
                call = w.send({"id": 0, "n": n}, 10, echo)
                assert call is not None
                assert await call == n
            assert w.served == 30 and w.pid == pid and w.info().outstanding == 0
        finally:
            await w.stop()

    run(main())


def test_a_missed_deadline_is_a_timeout_that_kills_the_worker(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w, pid = await started(script)
        try:
            call = w.send({"id": 0, "sleep": 120}, 0.5, echo)
            assert call is not None
            with pytest.raises(WorkerFailure) as failed:
                await call
            assert failed.value.code == "timeout" and failed.value.message == "no answer within 0.5 s"
            assert gone_soon(pid)
            again = await w.request({"n": 2}, 30)  # the next request restarts it
            assert again["echo"] == 2 and again["pid"] != pid and w.restarts == 1
        finally:
            await w.stop()

    run(main())


def test_a_busy_worker_leaves_the_request_to_the_general_path(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w, _ = await started(script)
        try:
            first = w.send({"id": 0, "n": 1, "sleep": 0.3}, 30, echo)
            assert first is not None
            assert w.send({"id": 0, "n": 2}, 30, echo) is None  # its one slot is taken
            queued = asyncio.ensure_future(w.request({"n": 3}, 30))
            assert await first == 1
            assert (await queued)["echo"] == 3
            call = w.send({"id": 0, "n": 4}, 30, echo)  # the slot came back
            assert call is not None and await call == 4
        finally:
            await w.stop()

    run(main())


def test_a_cancelled_caller_kills_the_worker_and_gives_the_slot_back(tmp_path: Path) -> None:
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w, pid = await started(script)
        try:
            call = w.send({"id": 0, "sleep": 120}, 60, echo)
            assert call is not None
            task = asyncio.ensure_future(call)
            await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert gone_soon(pid)
            again = await w.request({"n": 5}, 30)
            assert again["echo"] == 5 and again["pid"] != pid
        finally:
            await w.stop()

    run(main())


def test_an_answered_request_outlives_the_deadline_of_an_earlier_one(tmp_path: Path) -> None:
    # The first request arms the worker's timer for its deadline and is answered at once. The
    # second is still outstanding when that timer fires: the timer must sleep again until the
    # second's own deadline, not kill a worker that is on time.
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> None:
        w, pid = await started(script)
        try:
            call = w.send({"id": 0, "n": 1}, 5, echo)  # the timer is armed for now + 5 s
            assert call is not None and await call == 1
            await asyncio.sleep(2.5)
            # Sent at least 2.5 s after the first and held 3 s by the worker, it is still being served
            # when the first's deadline passes. Its own deadline is generous: the worker's 3 s plus any
            # delay on a loaded machine stay far inside it, so only a timer that kills an on-time
            # worker fails it.
            call = w.send({"id": 0, "n": 2, "sleep": 3.0}, 30, echo)
            assert call is not None and await call == 2
            assert w.pid == pid and w.restarts == 0 and w.failures == 0
        finally:
            await w.stop()

    run(main())


def test_slots_go_in_turn_and_a_cancelled_waiter_passes_its_turn_on() -> None:
    async def main() -> list[str]:
        slots = _Slots(1)
        order: list[str] = []
        assert slots.try_take()

        async def waiter(name: str) -> None:
            await slots.take()
            order.append(name)

        a, b, c = (asyncio.ensure_future(waiter(n)) for n in "abc")
        await asyncio.sleep(0)
        assert not slots.try_take()  # others wait: no jumping the queue
        b.cancel()  # cancelled while waiting
        slots.give()  # a's turn
        await asyncio.sleep(0)
        a_done = a.done()
        slots.give()  # a is done with it: b was cancelled, so c's turn
        c.cancel()  # ... but c is cancelled after being handed the slot: it passes it on
        await asyncio.gather(a, b, c, return_exceptions=True)
        assert a_done and slots.free == 1 and not slots.queue
        assert slots.try_take() and not slots.try_take()
        return order

    assert asyncio.run(main()) == ["a"]


def test_a_call_that_could_not_be_written_is_never_answered(tmp_path: Path) -> None:
    # Worker.call returns False when its request could not be written: its callback must then
    # never run, not even when the worker ends with the request still on its books.
    script = write_script(tmp_path / "echo.py", ECHO)

    async def main() -> list[Any]:
        w, pid = await started(script)
        called: list[Any] = []
        proc = w._proc
        assert proc is not None and proc.stdin is not None
        stdin = proc.stdin

        class Broken:
            def write(self, data: bytes) -> None:
                raise OSError("the pipe broke")

        proc.stdin = Broken()  # type: ignore[assignment]
        try:
            assert w.call({"n": 1}, 10, lambda answer, failure: called.append((answer, failure))) is False
            assert proc.pending == {} and w.info().outstanding == 0
        finally:
            proc.stdin = stdin
        again = w.send({"id": 0, "n": 2}, 10, echo)  # its slot came back: the worker serves on
        assert again is not None and await again == 2
        await w.stop()
        assert gone_soon(pid)
        return called

    assert run(main()) == []
