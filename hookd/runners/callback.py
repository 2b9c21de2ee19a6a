"""Callback hooks: handlers that live in a client process, run over its connection.

Running one sends an ``invoke`` frame to the connection that attached the hook
and waits for its ``invoke_result``. Any number of invocations may be in flight
on one connection; each has a daemon-chosen ``call`` id. Timeouts and handler
errors are the engine's business (Engine.invoke): this runner only turns a
result into a Decision, an error answer or a lost connection into HookFailure,
and forgets a call whose waiter went away (a late answer is then dropped).
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from hookd_client import messages as m

from hookd.core import intake
from hookd.core.chain import HookNotRun
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook


class Peer(Protocol):
    """What the runner needs of a connection (server.Connection has it)."""

    transport: Any

    def send(self, reply: m.Reply) -> None: ...


class Invocations:
    """Every invocation waiting for a client's answer, by connection."""

    def __init__(self) -> None:
        self._next = 0
        self._by_peer: dict[Peer, dict[int, asyncio.Future[m.InvokeResult]]] = {}

    def pending(self, peer: Peer | None = None) -> int:
        if peer is not None:
            return len(self._by_peer.get(peer, ()))
        return sum(len(calls) for calls in self._by_peer.values())

    async def invoke(self, peer: Peer, cb: int, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> m.InvokeResult:
        if peer.transport is None:
            raise HookFailure("error", "the client serving this hook has disconnected")
        self._next += 1
        call = self._next
        fut: asyncio.Future[m.InvokeResult] = asyncio.get_running_loop().create_future()
        calls = self._by_peer.setdefault(peer, {})
        calls[call] = fut
        try:
            try:
                peer.send(m.Invoke(call, cb, ctx.point, hook.name, hook.type, payload, ctx.session, ctx.project, replay=ctx.replay))
            except intake.Unfit as exc:
                raise HookFailure("error", f"the call could not be sent to the handler: {exc}") from None
            return await fut
        finally:
            calls.pop(call, None)
            if not calls and self._by_peer.get(peer) is calls:
                del self._by_peer[peer]

    def resolve(self, peer: Peer, result: m.InvokeResult) -> bool:
        """Hand a client's answer to its waiter; False when nobody waits (late, or not this peer's call)."""
        fut = self._by_peer.get(peer, {}).get(result.call)
        if fut is None or fut.done():
            return False
        fut.set_result(result)
        return True

    def fail(self, peer: Peer, call: int, message: str) -> bool:
        """The peer's answer to ``call`` could not be read: the invocation fails now, naming why."""
        fut = self._by_peer.get(peer, {}).get(call)
        if fut is None or fut.done():
            return False
        fut.set_exception(HookFailure("error", message))
        return True

    def drop(self, peer: Peer) -> int:
        """The peer is gone: every call waiting on it fails now rather than at its timeout."""
        calls = self._by_peer.pop(peer, {})
        for fut in calls.values():
            if not fut.done():
                fut.set_exception(HookFailure("error", "the client serving this hook disconnected before answering"))
        return len(calls)


class CallbackRunner:
    """The Runner of one callback hook: which connection serves it, and its handler number there."""

    __slots__ = ("calls", "cb", "peer")

    def __init__(self, calls: Invocations, peer: Peer, cb: int) -> None:
        self.calls = calls
        self.peer = peer
        self.cb = cb

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> m.Decision | None:
        if self.peer.transport is None:
            # The hook stays configured while its session waits out the grace period for the
            # client to come back: the call names it as not run instead of forgetting the guard.
            raise HookNotRun("disconnected", f"the client that served this hook ({hook.source}) disconnected")
        result = await self.calls.invoke(self.peer, self.cb, hook, payload, ctx)
        if result.error is not None:
            raise HookFailure("error", f"the handler raised: {result.error}")
        return result.decision if hook.type == "decision" else None
