"""One connection to the loopback HTTP endpoint. h11 parses; this module enforces the limits.

One request at a time per connection (Claude Code keeps connections alive, so
an event costs no TCP handshake); the next is read once the answer is sent.
Limits: the request head within ``head_timeout`` of the connection being idle
and at most ``max_head`` bytes; the body within ``body_timeout`` and at most
``max_body`` bytes (a larger one is read and dropped, never stored, and
answered so that the event is not allowed unseen); at most ``max_connections``.

Any local process can connect, secret or not, so connections that have not
shown the secret cannot crowd out those that have: they get ``unauth_head_timeout``
(a couple of seconds) for their first request head, and when every slot is taken
the oldest of them is closed to admit the newcomer. A connection that has once
sent a request with the secret (kept alive since) is never evicted.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

import h11
import structlog

from hookd.agents import decode, dialect
from hookd.edge.http import answer, checks, unhandled

if TYPE_CHECKING:
    from hookd.edge.http.endpoint import Endpoint

log = structlog.get_logger("hookd.httphooks")
REASONS = {
    200: b"OK",
    400: b"Bad Request",
    401: b"Unauthorized",
    403: b"Forbidden",
    404: b"Not Found",
    405: b"Method Not Allowed",
    408: b"Request Timeout",
    413: b"Content Too Large",
    431: b"Request Header Fields Too Large",
    500: b"Internal Server Error",
    503: b"Service Unavailable",
}


class HttpConnection(asyncio.Protocol):
    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.h11 = h11.Connection(h11.SERVER, max_incomplete_event_size=endpoint.options.max_head)
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.accepted: checks.Accepted | None = None
        self.body = bytearray()
        self.size = 0
        self.busy = False  # a request is being answered: nothing more is read until it is
        self.authenticated = False  # it has sent a request with the secret (then kept alive)
        self.closed = False  # closing: whatever else the peer sent is not looked at

    # ------------------------------------------------------------ transport

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's transports are not asyncio.Transport subclasses
        ep = self.endpoint
        if len(ep.connections) >= ep.options.max_connections:
            if not ep.unauthenticated:
                log.warning("HTTP hook connection refused: too many open", limit=ep.options.max_connections)
                transport.abort()  # type: ignore[attr-defined]  # uvloop's and asyncio's transports alike
                return
            # Every slot is taken: the oldest connection that has not shown the secret makes room.
            # A flood without the secret then only ever evicts itself, never a hook call.
            next(iter(ep.unauthenticated)).evict()
            ep.evicted()
        ep.connections.add(self)
        ep.unauthenticated[self] = None
        self._deadline(ep.options.unauth_head_timeout, "no complete request head")

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        self.endpoint.connections.discard(self)
        self.endpoint.unauthenticated.pop(self, None)
        self.transport = None

    def evict(self) -> None:
        """Closed at once to make room (see connection_made); it is counted gone now, not when its close completes."""
        self._cancel_timer()
        self.closed = True
        self.endpoint.connections.discard(self)
        self.endpoint.unauthenticated.pop(self, None)
        if self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        self.h11.receive_data(data)
        self._advance()

    def eof_received(self) -> bool:
        self.h11.receive_data(b"")
        self._advance()
        return False

    # -------------------------------------------------------------- parsing

    def _advance(self) -> None:
        while not self.busy and not self.closed and self.transport is not None:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                if self.accepted is not None:  # a request with the secret whose body went wrong: not left to pass
                    self._cannot_handle(f"its request body is malformed ({exc})", "bad_input", exc.error_status_hint)
                    return
                self._refuse(exc.error_status_hint, f"bad request: {exc}")
                return
            if event is h11.NEED_DATA:
                return
            if event is h11.PAUSED or isinstance(event, h11.ConnectionClosed):
                self.idle_close()
                return
            if isinstance(event, h11.Request):
                self._head(event)
            elif isinstance(event, h11.Data):
                self._data(event.data)
            elif isinstance(event, h11.EndOfMessage):
                self._complete()

    def _head(self, request: h11.Request) -> None:
        ep = self.endpoint
        verdict = checks.check(request.method, request.target, request.headers, ep.hosts, ep.token)
        if isinstance(verdict, checks.Refusal):
            log.warning("HTTP hook request refused", status=verdict.status, why=verdict.message)
            self._refuse(verdict.status, verdict.message)
            return
        self.accepted = verdict
        if not self.authenticated:
            self.authenticated = True
            ep.unauthenticated.pop(self, None)
        self.body = bytearray()
        self.size = 0
        self._deadline(ep.options.body_timeout, "the request body did not arrive in time")

    def _data(self, data: bytes) -> None:
        self.size += len(data)
        if self.size <= self.endpoint.options.max_body:
            self.body += data
        elif self.body:
            self.body = bytearray()  # over the limit: counted to the end, never stored

    def _complete(self) -> None:
        self._cancel_timer()
        accepted = self.accepted
        assert accepted is not None
        self.busy = True
        if self.transport is not None:
            self.transport.pause_reading()
        ep = self.endpoint
        task = asyncio.ensure_future(self._answer(accepted, bytes(self.body), self.size))
        ep.tasks.add(task)
        task.add_done_callback(ep.tasks.discard)
        self.body = bytearray()

    async def _answer(self, accepted: checks.Accepted, body: bytes, size: int) -> None:
        ep = self.endpoint
        try:
            reply = await self._outcome(accepted, body, size)
        except BaseException:
            # Cancelled (the daemon stops) or worse: the request still gets its one reply.
            why = "hookd stopped before it answered" if ep.daemon.closing else "hookd failed to answer"
            self.busy = False
            otherwise = unhandled.Reply(503, why.encode())
            try:
                reply = unhandled.reply_now(ep.daemon, accepted, why, "unavailable", None, otherwise)
            except Exception:  # never expected; the request must still get its one reply
                log.exception("HTTP hook: the answer for a request cut short failed", hook_event=accepted.event)
                reply = otherwise
            self._reply(reply)
            self.idle_close()
            raise
        self.busy = False
        self._reply(reply)
        if self.transport is None:
            return
        if self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE:
            self.h11.start_next_cycle()
            self.accepted = None
            self._deadline(ep.options.head_timeout, "no complete request head")
            self.transport.resume_reading()
            self._advance()
        else:
            self.idle_close()

    async def _outcome(self, accepted: checks.Accepted, body: bytes, size: int) -> unhandled.Reply:
        ep = self.endpoint
        daemon, event, agent = ep.daemon, accepted.event, accepted.agent
        limit = ep.options.max_body
        if size > limit:
            why = f"the {event} input is {size} bytes, over the endpoint's limit of {limit} bytes"
            log.warning("HTTP hook input over the limit: answered without its hooks", hook_event=event, size=size, limit=limit)
            return await unhandled.reply(daemon, accepted, why, "too_large", None, unhandled.notice(agent, event, why, "too_large"))
        try:
            out, exit2 = await answer.answer(
                daemon, event, body, accepted.environ, agent, accepted.installed, accepted.exits, accepted.timeout
            )
            return unhandled.Reply(200, out, exit2)
        except decode.Unfit as exc:
            why = f"hookd cannot hand this {event} to its hooks: {exc}"
            return await unhandled.reply(daemon, accepted, why, "too_large", exc.value, unhandled.notice(agent, event, why, "too_large"))
        except (decode.Undecodable, dialect.BadInput) as exc:
            why = f"the {event} input cannot be read: {exc}"
            return await unhandled.reply(daemon, accepted, why, "bad_input", None, unhandled.Reply(400, f"bad hook input: {exc}".encode()))
        except answer.Unavailable as exc:
            return await unhandled.reply(daemon, accepted, str(exc), "unavailable", None, unhandled.Reply(503, str(exc).encode()))
        except Exception as exc:
            log.exception("HTTP hook failed", hook_event=event)
            error = f"internal error: {type(exc).__name__}: {exc}"
            otherwise = unhandled.Reply(500, error.encode())
            return await unhandled.reply(daemon, accepted, f"hookd failed on it ({error})", "internal_error", None, otherwise)

    def _cannot_handle(self, why: str, reason: str, status: int) -> None:
        """The accepted request cannot be read to its end: its one reply now (see unhandled), then the connection closes."""
        accepted = self.accepted
        assert accepted is not None
        self._cancel_timer()
        self.closed = True
        log.warning("HTTP hook request not read to its end", hook_event=accepted.event, why=why)
        otherwise = unhandled.Reply(status, why.encode())
        self._reply(unhandled.reply_now(self.endpoint.daemon, accepted, why, reason, None, otherwise), close=True)
        self.idle_close()

    # ------------------------------------------------------------- replying

    def _reply(self, reply: unhandled.Reply, close: bool = False) -> None:
        if reply.exit2:
            self._respond(reply.status, reply.body, "text/plain; charset=utf-8", close, extra=[(checks.EXIT_HEADER, "2")])
        else:
            self._respond(reply.status, reply.body, "application/json" if reply.status == 200 else "text/plain; charset=utf-8", close)

    def _respond(
        self, status: int, body: bytes, content_type: str, close: bool = False, extra: list[tuple[str, str]] | None = None
    ) -> None:
        if self.transport is None or self.h11.our_state is not h11.SEND_RESPONSE:
            return
        headers = [("content-type", content_type), ("content-length", str(len(body))), *(extra or [])]
        if close:
            headers.append(("connection", "close"))
        try:
            out = self.h11.send(h11.Response(status_code=status, headers=headers, reason=REASONS.get(status, b"Error")))
            out += self.h11.send(h11.Data(data=body)) if body else b""
            out += self.h11.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            self.idle_close()
            return
        self.transport.write(out)

    def _refuse(self, status: int, message: str) -> None:
        """An error answer, then the connection closes: nothing more from this peer is read."""
        self._cancel_timer()
        self.closed = True
        if self.h11.our_state in (h11.IDLE, h11.SEND_RESPONSE):
            self._respond_any(status, message)
        self.idle_close()

    def _respond_any(self, status: int, message: str) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        body = message.encode()
        headers = [("content-type", "text/plain; charset=utf-8"), ("content-length", str(len(body))), ("connection", "close")]
        try:
            out = self.h11.send(h11.Response(status_code=status, headers=headers, reason=REASONS.get(status, b"Error")))
            out += self.h11.send(h11.Data(data=body)) + self.h11.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            # h11 only answers a request it has read; a head it could not parse gets a plain line.
            reason = REASONS.get(status, b"Error").decode()
            out = f"HTTP/1.1 {status} {reason}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n".encode() + body
        self.transport.write(out)

    def idle_close(self) -> None:
        self._cancel_timer()
        if self.transport is not None and not self.busy:
            self.closed = True
            self.transport.close()

    # --------------------------------------------------------------- timers

    def _deadline(self, seconds: float, what: str) -> None:
        self._cancel_timer()
        self.timer = asyncio.get_running_loop().call_later(seconds, self._expired, what)

    def _cancel_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _expired(self, what: str) -> None:
        self.timer = None
        if self.busy or self.transport is None:
            return
        if self.h11.their_state is h11.IDLE and not self.h11.trailing_data[0]:
            self.idle_close()  # a kept-alive connection with nothing pending: close quietly
            return
        if self.accepted is not None:  # a request with the secret whose body did not arrive: not left to pass
            self._cannot_handle(what, "incomplete", 408)
            return
        log.warning("HTTP hook connection closed", why=what)
        self._refuse(408, what)
