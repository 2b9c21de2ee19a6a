"""The asyncio client: many requests in flight on one connection (pipelining)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Iterable
from typing import Any

from .api import Api
from .client import _client_name
from .errors import ConnectionLost, DaemonNotRunning, HookdError, ProtocolMismatch
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import PROTOCOL_VERSION, Error, Hello, Reply, Request, Welcome
from .paths import default_socket_path
from .stream import AsyncSubscription, Since, subscribe_request


class AsyncClient(Api):
    """Asyncio hookd client. ``async with AsyncClient() as c: await c.decide(...)``."""

    def __init__(self, path: str | None = None, *, name: str | None = None) -> None:
        self.path = path or default_socket_path()
        self.name = name or _client_name()
        self.welcome: Welcome | None = None
        self._codec = reply_codec()
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._waiting: dict[int, asyncio.Future[Reply]] = {}
        self._init_ids()

    async def connect(self) -> Welcome:
        if self._writer is not None and self.welcome is not None:
            return self.welcome
        try:
            reader, writer = await asyncio.open_unix_connection(self.path, limit=1 << 20)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise DaemonNotRunning(self.path, exc.strerror or type(exc).__name__) from None
        self._writer = writer
        self._reader_task = asyncio.create_task(self._read_loop(reader))
        reply = await self._roundtrip(Hello(self._next_id(), PROTOCOL_VERSION, self.name, os.getpid()))
        if isinstance(reply, Error):
            await self.close()
            if reply.code == "version_mismatch":
                raise ProtocolMismatch(reply.code, reply.message)
            raise HookdError(reply.code, reply.message)
        assert isinstance(reply, Welcome)
        self.welcome = reply
        return reply

    async def close(self) -> None:
        writer, self._writer = self._writer, None
        task, self._reader_task = self._reader_task, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
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

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        decoder = FrameDecoder(1 << 30)
        try:
            while True:
                data = await reader.read(256 * 1024)
                if not data:
                    break
                for body in decoder.feed(data):
                    msg = self._codec.decode(body)
                    fut = self._waiting.pop(msg.id, None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
        except (OSError, FrameTooLarge, BadMessage) as exc:
            self._fail_all(ConnectionLost(f"connection to {self.path} failed: {exc}"))
            return
        self._writer = None
        self._fail_all(ConnectionLost())

    async def _roundtrip(self, request: Request) -> Reply:
        writer = self._writer
        if writer is None:
            raise ConnectionLost("the client is not connected")
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._waiting[request.id] = fut  # type: ignore[attr-defined]
        writer.write(self._codec.encode(request))
        return await fut

    async def _call_async(self, request: Request, convert: Callable[[Reply], Any]) -> Any:
        if self._writer is None:
            await self.connect()
        return convert(await self._roundtrip(request))

    def _call(self, request: Request, convert: Callable[[Reply], Any]) -> Any:
        return self._call_async(request, convert)

    # --- event stream (issue 4)

    def subscribe(
        self,
        points: Iterable[str] = (),
        *,
        sessions: Iterable[str] = (),
        projects: Iterable[str] = (),
        since: Since = None,
        follow: bool = True,
        queue: int | None = None,
        queue_bytes: int | None = None,
    ) -> AsyncSubscription:
        """``async for ev in client.subscribe(...)``: the event stream; see Client.subscribe."""
        request = subscribe_request(points, sessions, projects, since, follow, queue, queue_bytes)
        return AsyncSubscription(self.path, self.name, request)
