"""The dashboard's loopback HTTP server: h11 parses, this module enforces the limits.

Every request passes :func:`access.check` (Host, Origin, the secret) before anything else is
looked at. Limits: the request head within ``head_timeout`` and at most ``max_head`` bytes
(431 past it); a body of at most ``max_body`` bytes (413), all of it within ``body_timeout``;
at most ``max_connections`` connections and ``max_streams`` live streams at once. A live stream
(server-sent events) is an ordinary response whose body does not end until the page goes away.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import cast

import h11
import structlog

from hookd.dashboard import access

log = structlog.get_logger("hookd.dashboard")

HOST = "127.0.0.1"
REASONS = {
    200: b"OK",
    303: b"See Other",
    400: b"Bad Request",
    403: b"Forbidden",
    404: b"Not Found",
    405: b"Method Not Allowed",
    408: b"Request Timeout",
    409: b"Conflict",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    502: b"Bad Gateway",
    503: b"Service Unavailable",
}
# The page runs only its own script and style, talks only to its own origin, and is never framed.
SECURITY_HEADERS = [
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("cache-control", "no-store"),
    ("x-frame-options", "DENY"),
]


@dataclass(slots=True)
class Limits:
    max_head: int = 16 << 10
    max_body: int = 64 << 10
    head_timeout: float = 10.0
    body_timeout: float = 10.0
    max_connections: int = 64
    max_streams: int = 16


@dataclass(slots=True)
class Response:
    status: int
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    stream: AsyncIterator[bytes] | None = None  # a live body: written chunk by chunk until it ends


Handler = Callable[[access.Allowed, bytes], Awaitable[Response]]


class Server:
    def __init__(self, site_token: str, handler: Handler, limits: Limits | None = None) -> None:
        self.token = site_token
        self.handler = handler
        self.limits = limits or Limits()
        self.site = access.Site(0, site_token)
        self.server: asyncio.AbstractServer | None = None
        self.connections = 0
        self.streams = 0

    async def start(self, port: int = 0) -> int:
        self.server = await asyncio.start_server(self._serve, HOST, port, reuse_address=True)
        bound = int(self.server.sockets[0].getsockname()[1])
        self.site = access.Site(bound, self.token)
        return bound

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.connections >= self.limits.max_connections:
            writer.close()
            return
        self.connections += 1
        try:
            await _Conversation(self, reader, writer).run()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        except Exception:
            log.exception("dashboard connection failed")
        finally:
            self.connections -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Conversation:
    """One connection: requests one after another (keep-alive), each answered once."""

    def __init__(self, server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.reader = reader
        self.writer = writer
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=server.limits.max_head)

    async def run(self) -> None:
        limits = self.server.limits
        while True:
            try:
                async with asyncio.timeout(limits.head_timeout):
                    request = await self._next()
                if not isinstance(request, h11.Request):
                    return  # the peer closed between requests
                head = len(request.target) + sum(len(name) + len(value) + 4 for name, value in request.headers)
                if head > limits.max_head:  # h11 bounds a head still arriving; this, one that came whole
                    raise _Refused(431, f"the request head is over {limits.max_head} bytes")
                verdict = access.check(self.server.site, request.method, request.target, request.headers)
                if isinstance(verdict, access.Refusal):
                    log.warning("dashboard request refused", status=verdict.status, why=verdict.message)
                    raise _Refused(verdict.status, verdict.message)
                async with asyncio.timeout(limits.body_timeout):
                    body = await self._body(request)
            except TimeoutError:
                if self.h11.their_state is h11.IDLE and not self.h11.trailing_data[0]:
                    return  # a kept-alive connection with nothing pending: close quietly
                await self._send_error(408, "the request did not arrive in time")
                return
            except _Refused as refused:
                await self._send_error(refused.status, refused.message)
                return
            response = await self.server.handler(verdict, body)
            if response.stream is not None:
                await self._stream(response)
                return
            await self._send(response)
            if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
                self.h11.start_next_cycle()
            else:
                return

    async def _next(self) -> h11.Event | None:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise _Refused(exc.error_status_hint, f"bad request: {exc}") from None
            if event is h11.NEED_DATA:
                data = await self.reader.read(64 << 10)
                self.h11.receive_data(data)
                continue
            if event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                return None
            return cast(h11.Event, event)  # the sentinels are answered above

    async def _body(self, request: h11.Request) -> bytes:
        limit = self.server.limits.max_body
        for name, value in request.headers:
            if name == b"content-length" and int(value) > limit:
                raise _Refused(413, f"the request body is over {limit} bytes")
        body = bytearray()
        while True:
            event = await self._next()
            if isinstance(event, h11.Data):
                body += event.data
                if len(body) > limit:
                    raise _Refused(413, f"the request body is over {limit} bytes")
            elif isinstance(event, h11.EndOfMessage):
                return bytes(body)
            else:
                raise _Refused(400, "the request body ended early")

    def _head(self, response: Response, length: int | None) -> bytes:
        headers = [("content-type", response.content_type), *SECURITY_HEADERS, *response.headers]
        if length is not None:
            headers.append(("content-length", str(length)))
        return self.h11.send(h11.Response(status_code=response.status, headers=headers, reason=REASONS.get(response.status, b"Error")))

    async def _send(self, response: Response) -> None:
        out = self._head(response, len(response.body))
        if response.body:
            out += self.h11.send(h11.Data(data=response.body))
        out += self.h11.send(h11.EndOfMessage())
        self.writer.write(out)
        await self.writer.drain()

    async def _stream(self, response: Response) -> None:
        server = self.server
        assert response.stream is not None
        if server.streams >= server.limits.max_streams:
            await self._send_error(503, f"at most {server.limits.max_streams} live pages at once")
            return
        server.streams += 1
        # The peer's request is complete: what it sends now is only its closing the connection.
        gone = asyncio.ensure_future(self.reader.read(1))
        chunks = response.stream
        try:
            self.writer.write(self._head(response, None))
            await self.writer.drain()
            while True:
                following = asyncio.ensure_future(anext(chunks))
                done, _ = await asyncio.wait({following, gone}, return_when=asyncio.FIRST_COMPLETED)
                if following not in done:
                    following.cancel()
                    return  # the page went away
                try:
                    chunk = following.result()
                except StopAsyncIteration:
                    break
                self.writer.write(self.h11.send(h11.Data(data=chunk)))
                await self.writer.drain()
            self.writer.write(self.h11.send(h11.EndOfMessage()))
            await self.writer.drain()
        finally:
            server.streams -= 1
            gone.cancel()
            with contextlib.suppress(Exception):
                await chunks.aclose()  # type: ignore[attr-defined]

    async def _send_error(self, status: int, message: str) -> None:
        body = message.encode()
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE) and self.h11.their_state is not h11.ERROR:
            try:
                await self._send(Response(status, body, headers=[("connection", "close")]))
                return
            except h11.LocalProtocolError:
                pass
        # h11 answers only a request it has read; a head it could not parse gets a plain answer.
        reason = REASONS.get(status, b"Error").decode()
        self.writer.write(f"HTTP/1.1 {status} {reason}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body)
        await self.writer.drain()
