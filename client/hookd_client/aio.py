"""The asyncio client: many requests in flight on one connection (pipelining).

It also serves handlers: an ``invoke`` frame runs its handler in a
task and answers on the connection it came on. Coroutine handlers are awaited;
plain ones are called on the event loop, so they must not block. After a lost
connection the client reconnects (capped backoff), restores its sessions and
handlers, and only then sends anything else: in the background at once when it
serves handlers, otherwise on the next call.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

from . import aioconn
from .answers import encode_answer
from .api import Api, build
from .callbacks import label, run_async, unknown
from .client import client_name
from .errors import ConnectionLost, DaemonNotRunning, HookdError, NotSent, welcome_of
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import PROTOCOL_VERSION, Error, Hello, Invoke, InvokeResult, Reply, Request, Subscribe, Welcome
from .paths import default_socket_path
from .stream import AsyncSubscription


class AsyncClient(Api):
    """Asyncio hookd client. ``async with AsyncClient() as c: await c.decide(...)``."""

    def __init__(self, path: str | None = None, *, name: str | None = None, reconnect: float = 10.0) -> None:
        self.path = path or default_socket_path()
        self.name = name or client_name()
        self.reconnect = reconnect
        self.welcome: Welcome | None = None
        self.restore_errors: list[HookdError] = []
        self._codec = reply_codec()
        self._writer: asyncio.StreamWriter | None = None  # set once connected *and* restored
        self._live: asyncio.StreamWriter | None = None  # the connection's writer, from the hello on
        self._gen = 0
        self._reader_task: asyncio.Task[None] | None = None
        self._connecting: asyncio.Task[Welcome] | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self._closing = False
        self._init_ids()

    async def connect(self) -> Welcome:
        if self._writer is not None and self.welcome is not None:
            return self.welcome
        self._closing = False
        task = self._connecting
        if task is None or task.done():
            task = self._connecting = asyncio.ensure_future(self._open() if self.welcome is None else self._reopen(self.reconnect))
        try:
            async with asyncio.timeout(self.reconnect + 5):
                return await asyncio.shield(task)
        except TimeoutError:
            raise DaemonNotRunning(self.path, f"not back after {self.reconnect:g} s") from None

    async def _reopen(self, budget: float | None) -> Welcome:
        """Reconnect with capped backoff: for ``budget`` seconds, or (None) until closed."""
        deadline = None if budget is None else time.monotonic() + budget
        delay = 0.01
        while True:
            try:
                return await self._open()
            except (DaemonNotRunning, ConnectionLost, OSError):
                if self._closing or (deadline is not None and time.monotonic() + delay > deadline):
                    raise
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.25)

    async def _open(self) -> Welcome:
        reader, writer = await aioconn.connect(self.path)
        self._gen += 1
        self._live = writer
        self._reader_task = asyncio.create_task(self._read_loop(reader, self._gen))
        reply = await self._send(Hello(self._next_id(), PROTOCOL_VERSION, self.name, os.getpid()))
        if isinstance(reply, Error):  # the daemon refused us: this connection is done
            self._live = None
            writer.close()
        self.welcome = welcome = welcome_of(reply)
        requests = self._book.restore_requests(self._ids)
        if requests:
            replies = await asyncio.gather(*(self._send(r) for r in requests))
            errors = [self._book.restored(req, rep) for req, rep in zip(requests, replies, strict=True)]
            self.restore_errors = [e for e in errors if e is not None]
        self._writer = writer
        return welcome

    async def close(self) -> None:
        self._closing = True
        writer, self._writer = self._live, None
        self._live = None
        task, self._reader_task = self._reader_task, None
        connecting, self._connecting = self._connecting, None
        await aioconn.close(writer, task, connecting)
        for t in list(self._handlers):
            t.cancel()
        self._fail_all(ConnectionLost("the client was closed"))

    async def __aenter__(self) -> AsyncClient:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _fail_all(self, exc: BaseException) -> None:
        waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(exc)

    async def _read_loop(self, reader: asyncio.StreamReader, gen: int) -> None:
        decoder = FrameDecoder(1 << 30)
        lost: ConnectionLost = ConnectionLost("the connection to the daemon was lost; the call's outcome is unknown")
        try:
            while True:
                data = await reader.read(256 * 1024)
                if not data:
                    break
                for body in decoder.feed(data):
                    msg = self._codec.decode(body)
                    if type(msg) is Invoke:
                        self._invoke(msg, gen)
                        continue
                    fut = self._waiting.pop(msg.id, None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
        except (OSError, FrameTooLarge, BadMessage) as exc:
            lost = ConnectionLost(f"connection to {self.path} failed: {exc}")
        writer = self._live if gen == self._gen else None
        if writer is not None:
            writer.close()  # the peer is gone; a half-closed transport would linger
        if gen != self._gen:
            return
        # Lost while still connecting: the connect in progress fails and retries; no second reconnect.
        established = self._writer is not None
        self._writer = None
        self._live = None
        self._fail_all(lost)
        if established and self._book.serving and not self._closing:
            self._connecting = asyncio.ensure_future(self._reopen(None))
            self._connecting.add_done_callback(_quiet)

    def _invoke(self, inv: Invoke, gen: int) -> None:
        task = asyncio.ensure_future(self._answer(inv, gen))
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _answer(self, inv: Invoke, gen: int) -> None:
        served = self._book.served.get(inv.cb)
        result: InvokeResult = unknown(inv) if served is None else await run_async(served, inv)
        # Exactly one answer per invoke: what cannot be sent becomes an error answer naming why.
        welcome = self.welcome
        data = encode_answer(self._codec.encode, result, label(inv, served), welcome.limits.max_frame if welcome else None)
        writer = self._live
        if gen == self._gen and writer is not None and not writer.is_closing():
            writer.write(data)

    async def _send(self, request: Request) -> Reply:
        return await self._exchange(self._live, request)

    async def _roundtrip(self, request: Request) -> Reply:
        return await self._exchange(self._writer, request)

    async def _exchange(self, writer: asyncio.StreamWriter | None, request: Request) -> Reply:
        if writer is None:
            raise ConnectionLost("the client is not connected")
        rid: int = request.id  # type: ignore[attr-defined]
        if writer.is_closing():
            raise NotSent("the connection to the daemon is closing")
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        writer.write(self._codec.encode(request))
        if writer.is_closing():  # the write itself failed: the peer is gone, nothing was sent
            if self._waiting.get(rid) is fut:
                del self._waiting[rid]
            raise NotSent("the connection to the daemon closed before the request was sent")
        return await fut

    async def _call_async(self, request: Request | Callable[[], Request], convert: Callable[[Reply], Any]) -> Any:
        # A connection found dead before the request was written (the daemon restarted while
        # this client was idle) is not the caller's problem: send it on a new one, once.
        for attempt in (1, 2):
            if self._writer is None:
                await self.connect()
            try:
                return convert(await self._roundtrip(build(request)))
            except NotSent:
                if attempt == 2:
                    raise
                await self._settle()
        raise AssertionError("unreachable")

    async def _settle(self) -> None:
        """Let the reader of a dead connection finish, so that the next call reconnects."""
        task = self._reader_task
        if task is not None and not task.done():
            await asyncio.wait({task}, timeout=5)
        writer = self._live
        if writer is not None and writer.is_closing():
            self._writer = self._live = None

    def _call(self, request: Request | Callable[[], Request], convert: Callable[[Reply], Any]) -> Any:
        return self._call_async(request, convert)

    def _stream(self, request: Subscribe, timeout: float | None) -> AsyncSubscription:
        # ``async for ev in client.subscribe(...)``; an async caller bounds waits with asyncio.timeout.
        return AsyncSubscription(self.path, self.name, request)


def _quiet(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
