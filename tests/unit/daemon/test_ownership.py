"""Session ownership bookkeeping and grace timers (hookd/daemon/sessions.py), on a real event loop."""

from __future__ import annotations

import asyncio

from hookd.core.registry import Hook
from hookd.daemon.sessions import Ownership
from hookd.runners.callback import CallbackRunner, Invocations


class Conn:
    """Stands for a connection: only its identity matters to Ownership."""

    transport = None


def callback_hook(calls: Invocations, conn: Conn, handle: str) -> Hook:
    return Hook("h", "tool.approval.pre", "decision", "session", "s1", "client:1", CallbackRunner(calls, conn, 1), handle=handle)  # type: ignore[arg-type]


def test_disconnect_returns_served_hooks_and_expires_orphans_after_grace():
    async def main() -> list[str]:
        expired: list[str] = []
        own = Ownership(0.05, expired.append)
        a, b = Conn(), Conn()
        calls = Invocations()
        own.claim(a, "s1", None)
        own.claim(a, "s2", None)
        own.claim(b, "s2", a)  # s2 moves to b
        hook = callback_hook(calls, a, "h1")
        own.serve(a, [hook])
        hooks, orphans = own.disconnect(a)
        assert hooks == [hook] and orphans == {"s1"}
        assert own.waiting() == 1
        await asyncio.sleep(0.2)
        assert own.waiting() == 0
        assert own.disconnect(a) == ([], set())
        return expired

    assert asyncio.run(main()) == ["s1"]


def test_reclaiming_within_grace_cancels_the_timer_and_forget_clears_everything():
    async def main() -> list[str]:
        expired: list[str] = []
        own = Ownership(0.05, expired.append)
        a, b = Conn(), Conn()
        calls = Invocations()
        own.claim(a, "s1", None)
        own.disconnect(a)
        own.claim(b, "s1", None)
        hook = callback_hook(calls, b, "h2")
        own.serve(b, [hook])
        own.forget_hooks([hook])
        await asyncio.sleep(0.2)
        assert own.disconnect(b) == ([], {"s1"})
        own.forget_session("s1", None)
        await asyncio.sleep(0.2)
        return expired

    assert asyncio.run(main()) == []
