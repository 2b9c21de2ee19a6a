"""The reply future of a warm decide (hookd/engine/warm.py): the connection's callback runs as it is
resolved, in the same pass of the loop; a task awaiting it is woken the usual way, never stepped
from inside whatever resolved it; a failing callback does not stop the others."""

from __future__ import annotations

import asyncio
from typing import Any

from hookd.engine.warm import _Reply


def test_a_plain_callback_runs_as_the_reply_is_resolved() -> None:
    async def main() -> list[str]:
        reply = _Reply(asyncio.get_running_loop())
        seen: list[str] = []
        reply.add_done_callback(lambda f: seen.append(f"first {f.result()}"))
        reply.add_done_callback(lambda f: 1 / 0)  # reported to the loop, the next one still runs
        reply.add_done_callback(lambda f: seen.append("third"))
        reply.set_result("ok")
        seen.append("after set_result")
        reply.add_done_callback(lambda f: seen.append("added when done"))  # the usual way: next pass
        seen.append("after the late add")
        await asyncio.sleep(0)
        return seen

    errors: list[dict[str, Any]] = []

    def run() -> list[str]:
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(lambda _loop, context: errors.append(context))
        try:
            return loop.run_until_complete(main())
        finally:
            loop.close()

    assert run() == ["first ok", "third", "after set_result", "after the late add", "added when done"]
    assert [type(e["exception"]) for e in errors] == [ZeroDivisionError]


def test_a_task_awaiting_it_is_woken_by_the_loop() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        reply = _Reply(loop)
        order: list[str] = []

        async def waiter() -> None:
            order.append(f"woken with {await reply}")

        task = loop.create_task(waiter())
        await asyncio.sleep(0)
        reply.set_result(7)
        order.append("resolver goes on")
        await task
        return order

    assert asyncio.run(main()) == ["resolver goes on", "woken with 7"]


def test_failure_and_cancel_reach_the_callbacks() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        failed, cancelled = _Reply(loop), _Reply(loop)
        seen: list[str] = []
        failed.add_done_callback(lambda f: seen.append(type(f.exception()).__name__))
        cancelled.add_done_callback(lambda f: seen.append("cancelled" if f.cancelled() else "?"))
        failed.set_exception(RuntimeError("boom"))
        assert cancelled.cancel()
        dropped = _Reply(loop)
        dropped.add_done_callback(seen.append)
        assert dropped.remove_done_callback(seen.append) == 1
        dropped.set_result(None)
        return seen

    assert asyncio.run(main()) == ["RuntimeError", "cancelled"]


def test_whatever_the_call_makes_of_its_chain_the_reply_is_resolved() -> None:
    # _settle: a reply now, a coroutine's reply later, and anything else (a bug) as an error,
    # never a call left without a reply.
    from hookd_client import messages as m

    from hookd.core.chain import ChainState
    from hookd.engine.warm import _settle

    async def later() -> m.Reply:
        await asyncio.sleep(0)
        return m.Outcome(2)

    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        made: list[Any] = [m.Outcome(1), later(), object()]
        replies = [_Reply(loop) for _ in made]
        for reply, result in zip(replies, made, strict=True):
            _settle(reply, lambda _state, _took, result=result: result, ChainState({}), 0.0)
        await asyncio.wait_for(asyncio.gather(*replies, return_exceptions=True), 10)
        return [r.exception() or r.result() for r in replies]

    first, second, third = asyncio.run(main())
    assert first == m.Outcome(1) and second == m.Outcome(2)
    assert isinstance(third, TypeError)
