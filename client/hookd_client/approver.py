"""An approver: a program that decides the calls whose hooks asked for a person.

An approver gets its own connection (offers arrive on it at any time). Iterating it yields
:class:`ApprovalOffer` frames (a call waiting for an answer) and :class:`ApprovalClosed`
frames (an offer was decided, by this approver, another one, or the deadline); ``pending``
holds the offers still open. The first answer to an offer decides the call; a late one
raises :class:`HookdError` with code ``conflict``.

    async with AsyncApprover(name="alice") as approver:
        async for item in approver:
            if isinstance(item, ApprovalOffer):
                await approver.answer(item.offer, "deny", "not on a Friday")
"""

from __future__ import annotations

import asyncio
import itertools
import os
from typing import Any

from . import aioconn
from .client import client_name
from .errors import ConnectionLost, unexpected, welcome_of
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import (
    PROTOCOL_VERSION,
    ApprovalAnswer,
    ApprovalAnswered,
    ApprovalClosed,
    ApprovalDecision,
    ApprovalOffer,
    Approvals,
    Approving,
    Hello,
    Reply,
    Request,
)
from .paths import default_socket_path

__all__ = ["ApprovalClosed", "ApprovalOffer", "AsyncApprover"]

_END = object()


class AsyncApprover:
    """``async with AsyncApprover(name=...) as a: async for item in a: ...``"""

    def __init__(self, path: str | None = None, *, name: str = "", client: str | None = None) -> None:
        self.path = path or default_socket_path()
        self.name = name
        self.client = client or client_name()
        self.approving: Approving | None = None
        self.pending: dict[int, ApprovalOffer] = {}  # open offers by number, oldest first
        self._codec = reply_codec()
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self._items: asyncio.Queue[Any] = asyncio.Queue()
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._lost: BaseException | None = None

    async def open(self) -> AsyncApprover:
        if self._writer is not None:
            return self
        reader, writer = await aioconn.connect(self.path)
        try:
            self._writer = writer
            self._reader_task = asyncio.create_task(self._read_loop(reader))
            welcome_of(await self._request(Hello(next(self._ids), PROTOCOL_VERSION, self.client, os.getpid())))
            reply = await self._request(Approvals(next(self._ids), self.name))
            if not isinstance(reply, Approving):
                raise unexpected(reply, Approving)
            self.approving = reply
        except BaseException:
            await self.close()
            raise
        return self

    async def answer(self, offer: int, decision: ApprovalDecision, reason: str | None = None) -> ApprovalAnswered:
        """Decide ``offer``; raises HookdError (``conflict``: already decided, ``not_found``: unknown)."""
        if decision not in ("allow", "deny"):
            raise ValueError(f"an approval answer is allow or deny, not {decision!r}")
        reply = await self._request(ApprovalAnswer(next(self._ids), offer, decision, reason))
        if not isinstance(reply, ApprovalAnswered):
            raise unexpected(reply, ApprovalAnswered)
        return reply

    async def next(self, timeout: float | None = None) -> ApprovalOffer | ApprovalClosed:
        """The next offer or closed notice; raises ConnectionLost once the connection ends."""
        await self.open()
        async with asyncio.timeout(timeout):
            item = await self._items.get()
        if item is _END:
            self._items.put_nowait(_END)  # every later call ends too
            raise self._lost or ConnectionLost("the approver was closed")
        return item  # type: ignore[no-any-return]

    def __aiter__(self) -> AsyncApprover:
        return self

    async def __anext__(self) -> ApprovalOffer | ApprovalClosed:
        try:
            return await self.next()
        except ConnectionLost:
            raise StopAsyncIteration from None

    async def close(self) -> None:
        writer, self._writer = self._writer, None
        task, self._reader_task = self._reader_task, None
        await aioconn.close(writer, task)
        self._end(ConnectionLost("the approver was closed"))

    async def __aenter__(self) -> AsyncApprover:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -------------------------------------------------------------- inside

    async def _request(self, request: Request) -> Reply:
        writer = self._writer
        if writer is None or writer.is_closing():
            raise self._lost or ConnectionLost("the approver is not connected")
        rid: int = request.id  # type: ignore[attr-defined]
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        writer.write(self._codec.encode(request))
        return await fut

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        decoder = FrameDecoder(1 << 30)
        lost = ConnectionLost("the connection to the daemon was lost")
        try:
            while data := await reader.read(256 * 1024):
                for body in decoder.feed(data):
                    self._frame(self._codec.decode(body))
        except (OSError, FrameTooLarge, BadMessage) as exc:
            lost = ConnectionLost(f"connection to {self.path} failed: {exc}")
        self._end(lost)

    def _frame(self, msg: Reply) -> None:
        if isinstance(msg, ApprovalOffer):
            self.pending[msg.offer] = msg
            self._items.put_nowait(msg)
        elif isinstance(msg, ApprovalClosed):
            self.pending.pop(msg.approval.offer, None)
            self._items.put_nowait(msg)
        else:
            fut = self._waiting.pop(getattr(msg, "id", 0), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)

    def _end(self, exc: BaseException) -> None:
        if self._lost is None:
            self._lost = exc
            self._items.put_nowait(_END)
        waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(exc)
