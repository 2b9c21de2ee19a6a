"""A handler's answer always reaches the daemon: hostile return values and hanging handlers, on a real daemon."""

from __future__ import annotations

import asyncio
import pathlib
import threading

from hookd_client import AsyncClient, Client

POINT = "tool.approval.pre"


def test_unencodable_answers_become_hook_errors_and_the_pool_survives(daemon):  # type: ignore[no-untyped-def]
    def path_guard(payload: dict) -> dict:
        return {"decision": "allow", "modifiedInput": {"file": pathlib.Path("/etc/passwd")}}

    # One handler thread: on the old client the first such answer killed it and every later call timed out.
    with Client(daemon.socket, handler_threads=1) as c:
        c.register_decision(POINT, path_guard, session="s1", name="path-guard", timeout=10)
        for _ in range(5):
            out = c.decide(POINT, {}, session="s1")
            assert out.decision is None
            assert [(e.hook.name, e.code) for e in out.errors] == [("path-guard", "error")]
            assert "PosixPath" in out.errors[0].message and "path-guard" in out.errors[0].message
        c.register_decision(POINT, lambda p: {"decision": "deny", "reason": "still served"}, session="s2", timeout=10)
        out = c.decide(POINT, {}, session="s2")
        assert out.decision == "deny" and out.reason == "still served"
        # A fail-closed guard whose answer cannot be sent denies.
        c.register_decision(POINT, path_guard, session="s3", name="strict", on_error="deny", timeout=10)
        out = c.decide(POINT, {}, session="s3")
        assert out.decision == "deny" and "PosixPath" in out.reason


def test_async_client_degrades_an_unencodable_answer(daemon):  # type: ignore[no-untyped-def]
    async def main() -> None:
        async with AsyncClient(daemon.socket) as c:

            async def big(payload: dict) -> dict:
                return {"decision": "deny", "modifiedInput": {"n": 2**70}}

            await c.register_decision(POINT, big, session="s1", name="big-int", on_error="deny", timeout=10)
            for _ in range(3):
                out = await c.decide(POINT, {}, session="s1")
                assert out.decision == "deny" and "64 bits" in out.reason
                assert [(e.hook.name, e.code) for e in out.errors] == [("big-int", "error")]

    asyncio.run(main())


def test_a_hung_handler_costs_its_thread_and_calls_time_out_cleanly(daemon):  # type: ignore[no-untyped-def]
    release = threading.Event()
    entered = threading.Event()

    def hangs(payload: dict) -> None:
        entered.set()
        release.wait(60)

    with Client(daemon.socket, handler_threads=1) as c:
        c.register_decision(POINT, hangs, session="s1", name="hangs", timeout=0.5)
        c.register_decision(POINT, lambda p: {"decision": "deny", "reason": "other"}, session="s2", name="other", timeout=0.5)
        out = c.decide(POINT, {}, session="s1")
        assert entered.wait(20)
        assert [(e.hook.name, e.code) for e in out.errors] == [("hangs", "timeout")]
        # The only handler thread is held: the other handler's call times out, named, and the client keeps serving.
        out = c.decide(POINT, {}, session="s2")
        assert out.decision is None and [(e.hook.name, e.code) for e in out.errors] == [("other", "timeout")]
        release.set()

        def other_answers() -> bool:
            return c.decide(POINT, {}, session="s2").reason == "other"

        assert any(other_answers() for _ in range(40))
