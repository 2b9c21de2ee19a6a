"""One client connection: frames in, exactly one reply out per request.

A connection feeds received bytes to the sans-IO decoder, hands each request
to the Daemon and writes every reply that is ready after one read in a single
write (pipelined clients cost one syscall per batch, not per frame). Replies
that must wait for hooks are written when they are done.

What holds whatever happens (docs/protocol.md, "Limits"):
- Every request gets exactly one reply. A reply that cannot be encoded is
  replaced by an error naming what could not be; a request whose work raised,
  or was cancelled at shutdown, gets an error; a body that does not decode gets
  a ``bad_request`` with its id when the id can still be read.
- Invoke results are read and resolved as soon as they arrive, never queued
  behind requests: requests past ``max_inflight`` (or while the peer does not
  read its replies) wait, undispatched, in a queue bounded by bytes, and only
  when that bound is hit does the daemon stop reading. A client that serves
  the callbacks its own pipelined decides invoke cannot wedge its connection.
- Deadlines: a hello within ``hello_timeout``, a partial frame completed within
  ``frame_timeout``, and ``idle_timeout`` for a silent connection that holds
  nothing. A peer that leaves more than ``max_write_buffer`` bytes unread is
  closed, and the callbacks it serves fail at once.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

import structlog
from hookd_client import messages as m
from hookd_client.framing import HEADER, BadMessage, FrameDecoder, FrameTooLarge, request_codec

from hookd.core import intake
from hookd.core.limits import EdgeLimits
from hookd.edge.deadlines import Deadline
from hookd.edge.wire import bad_invoke_result, encode_degraded, hello, invoke_result, is_invoke_result, refused, unfinished, wind_up

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon

log = structlog.get_logger("hookd.server")

# A connection that sent one of these holds something (a session, served hooks, a
# subscription): it is never closed for being silent.
_HOLDING = (m.AttachSession, m.AttachHooks, m.Register, m.Subscribe)
_NO_HEADER = bytes(HEADER.size)
_pack_header = HEADER.pack_into


class Hub(Protocol):
    """The set of open connections a connection belongs to (hookd/edge/server.py): the limits they
    live within, and the bytes of partial frames they hold, bounded in total."""

    limits: EdgeLimits

    def gone(self, conn: Connection) -> None: ...

    def hold(self, conn: Connection, held: int) -> None: ...


class Connection(asyncio.Protocol):
    def __init__(self, daemon: Daemon, hub: Hub | None = None) -> None:
        self.daemon = daemon
        self.hub = hub
        self.limits: EdgeLimits = hub.limits if hub is not None else EdgeLimits()
        self.codec = request_codec()
        self.decoder = FrameDecoder(daemon.settings.max_frame)
        self.transport: asyncio.Transport | None = None
        self.greeted = False
        self.holds = False
        self.peer = 0
        self.client = ""
        self.inflight: dict[asyncio.Future[Any], int] = {}  # work -> the id of the request it answers
        self.pending: deque[bytes] = deque()  # bodies read but not yet dispatched
        self.pending_bytes = 0
        self._paused_reading = False
        self.paused_writing = False  # the transport's buffer is over its high-water mark (a stream starts paused then)
        self._deadline: Deadline | None = None
        self._loop_time: Callable[[], float] = time.monotonic  # the loop's clock, once connected
        self._ending: m.Error | None = None  # the error the connection ends with, once the rest is answered
        self.stream: Any = None  # the event-bus subscriber on this connection, if any
        self.body_size = 0  # the frame size of the request being handled (what its decoded payload may hold)
        self.held = 0  # bytes of a partial frame held, as the hub counts them (Hub.hold)
        self.held_since = 0.0  # since when it holds some
        self.log = log
        self._max_inflight = daemon.settings.max_inflight
        self._decode = self.codec.decoder.decode  # the fast path's; errors are named by codec.decode
        self._encode_into = self.codec.encoder.encode_into

    # ----------------------------------------------------------- lifecycle

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if refused(self, transport, log):
            return  # never counted as a connection
        self.transport = transport  # type: ignore[assignment]
        self.daemon.connections += 1
        self.daemon.on_connect(self)
        loop = asyncio.get_running_loop()
        self._loop_time = loop.time
        self._deadline = Deadline(loop, self._expired)
        self._deadline.arm("hello", self.limits.hello_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.transport is None:
            return
        self.transport = None
        self.pending.clear()
        self.pending_bytes = 0
        # Let go of a partial frame now: the connection itself may wait in a reference cycle for the
        # collector, and its megabyte with it.
        self.decoder.discard()
        if self.hub is not None:
            self.hub.gone(self)
        self.daemon.connections -= 1
        self.daemon.on_disconnect(self)

    def pause_writing(self) -> None:
        # The peer does not read its replies: requests wait undispatched (still read, so
        # that invoke results are not stuck behind them), up to max_pending_bytes.
        self.paused_writing = True
        if self.stream is not None:
            self.stream.pause_writing()

    def resume_writing(self) -> None:
        self.paused_writing = False
        self._pump()
        if self.stream is not None:
            self.stream.resume_writing()

    # ------------------------------------------------------------ deadlines

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.disarm()

    def _rearm(self, frame_completed: bool) -> None:
        """After a read or a finished request: which deadline runs now, if any."""
        deadline = self._deadline
        if not self.greeted or self.transport is None or deadline is None or self._ending is not None:
            return  # the hello deadline runs from accept until the hello; an ending connection reads no more
        if self.decoder.held and not self._paused_reading:
            kind, seconds = "frame", self.limits.frame_timeout
        elif not self.holds and self.stream is None:
            # Idle-bound even while requests are in flight or waiting: the deadline keeps running
            # and, should it expire while the connection still has work, starts over (_expired).
            # Cancelling it and arming it again around every request that waits cost more than
            # the wait's own bookkeeping.
            kind, seconds = "idle", self.limits.idle_timeout
        else:
            deadline.disarm()
            return
        if deadline.kind != kind:
            deadline.arm(kind, seconds)
        elif frame_completed or kind == "idle":
            deadline.restart()

    def _expired(self, kind: str, seconds: float) -> None:
        if kind == "idle" and (self.inflight or self.pending) and self._deadline is not None:
            self._deadline.arm("idle", seconds)  # not idle: its requests are not all answered yet
            return
        what = {
            "hello": f"no hello within {seconds:g} s of connecting",
            "frame": f"a frame was not completed within {seconds:g} s",
            "idle": f"the connection was idle for {seconds:g} s",
        }[kind]
        self.log.info("closing connection", reason=what)
        self.send_now(m.Error(0, m.ErrorCode.TIMEOUT, f"closing the connection: {what}"))
        self.close()

    # ------------------------------------------------------------- reading

    def data_received(self, data: bytes) -> None:
        if self._ending is not None:
            return  # past an oversized frame: nothing after it can be read as frames
        out = bytearray()
        decoder = self.decoder
        try:
            bodies = decoder.feed(data)
        except FrameTooLarge as exc:
            # The header can no longer be trusted to find the next frame, so nothing more is
            # read; the whole frames before it are still answered (those that wait, when they
            # are done), then the error, then the connection ends.
            for body in exc.complete:
                self._one(body, out)
            self.log.warning("closing connection: frame too large", declared=exc.declared, limit=exc.limit)
            self._ending = m.Error(0, m.ErrorCode.FRAME_TOO_LARGE, str(exc))
            if out:
                self._write(out)
            self._pause_reading()
            decoder.discard()
            if self.held and self.hub is not None:
                self.hub.hold(self, 0)
            self._end_when_answered()
            return
        daemon = self.daemon
        inline, handle = daemon.inline, daemon.handle
        for body in bodies:
            # The fast path is the general path with the checks that cannot apply skipped: the calls
            # agents make before and after every tool (daemon.inline), on a greeted connection with
            # room to run them, go straight to the daemon's one dispatch (Daemon.handle) and their
            # replies are encoded into this read's output. Anything unusual (not greeted yet,
            # stopping, a reply that cannot be encoded) takes the general path.
            if self.pending or self.paused_writing or len(self.inflight) >= self._max_inflight or not self.greeted:
                self._one(body, out)
                continue
            try:
                request = self._decode(body)
            except Exception:  # the general path names what is wrong with it
                self._request(body, out)
                continue
            if type(request) not in inline or daemon.closing:
                self._dispatch(request, out)
                continue
            rid = request.id
            self.body_size = len(body)
            result = handle(self, request)
            if not isinstance(result, m.Reply):
                # A future (a warm decide) is answered by _finished, failure included; work that
                # waits is already guarded into its error reply by the dispatch.
                self._later(result, rid)
                continue
            start = len(out)
            out += _NO_HEADER
            try:
                self._encode_into(result, out, start + 4)
            except Exception:
                del out[start:]
                self.encode(result, out, rid)  # names what could not be encoded
            else:
                _pack_header(out, start, len(out) - start - 4)
        # The end of the fast path is written out too (this runs once per read): _write's
        # checks, then _rearm's common case, an idle-bound connection counting from now.
        transport = self.transport
        if out and transport is not None and not transport.is_closing():
            transport.write(out)
            if transport.get_write_buffer_size() > self.limits.max_write_buffer:
                self._not_read(transport)
        # The partial frame's bytes count against the bound on all connections' (Hub.hold), after
        # this read's replies are written: should this connection be shed, they go out first.
        held = len(decoder.held)
        if held != self.held and self.hub is not None:
            self.hub.hold(self, held)
        deadline = self._deadline
        if bodies and deadline is not None and deadline.kind == "idle" and not (decoder.held or self.holds or self.stream is not None):
            deadline.since = self._loop_time()
        else:
            self._rearm(bool(bodies))

    def _one(self, body: bytes, out: bytearray) -> None:
        if self.pending or not self._may_dispatch():
            # Requests wait their turn in order; an invoke result never waits.
            if is_invoke_result(body):
                self._request(body, out)
                return
            self.pending.append(body)
            self.pending_bytes += len(body)
            if self.pending_bytes > self.limits.max_pending_bytes and not self._paused_reading:
                self._pause_reading()
            return
        self._request(body, out)

    def _may_dispatch(self) -> bool:
        return not self.paused_writing and len(self.inflight) < self._max_inflight

    def _request(self, body: bytes, out: bytearray) -> None:
        self.body_size = len(body)
        try:
            request = self.codec.decode(body)
        except BadMessage as exc:
            self._bad(exc, out)
            return
        self._dispatch(request, out)

    def _dispatch(self, request: Any, out: bytearray) -> None:
        if not self.greeted:
            self.encode(hello(self, request), out)
            return
        if isinstance(request, m.Hello):
            self.encode(m.Error(request.id, m.ErrorCode.BAD_REQUEST, "hello was already sent"), out)
            return
        if type(request) is m.InvokeResult:  # an answer to the daemon's invoke, not a request: no reply
            self._invoke_result(request)
            return
        rid: int = request.id  # type: ignore[attr-defined]
        if self.daemon.closing:
            self.encode(m.Error(rid, m.ErrorCode.SHUTTING_DOWN, "the daemon is shutting down"), out)
            return
        if isinstance(request, _HOLDING):
            self.holds = True
        try:
            result = self.daemon.handle(self, request)
        except Exception as exc:  # the daemon answers its own errors; this is the last net
            self.log.exception("request failed", request=type(request).__name__)
            result = m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
        if isinstance(result, m.Reply):
            self.encode(result, out, rid)
        else:
            self._later(result, rid)

    def _bad(self, exc: BadMessage, out: bytearray) -> None:
        if exc.kind == "invoke_result":
            bad_invoke_result(self, exc)  # invoke results get no reply
            return
        self.encode(m.Error(exc.request_id, m.ErrorCode.BAD_REQUEST, str(exc)), out)

    def _invoke_result(self, result: m.InvokeResult) -> None:
        invoke_result(self, result)

    # ----------------------------------------------------- work that waits

    def _later(self, work: Coroutine[Any, Any, m.Reply] | asyncio.Future[m.Reply], rid: int) -> None:
        task = work if isinstance(work, asyncio.Future) else asyncio.ensure_future(work)
        self.inflight[task] = rid
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Future[m.Reply]) -> None:
        rid = self.inflight.pop(task, None)
        if rid is None:
            return  # already answered (the connection was wound up at shutdown)
        out = bytearray()
        try:
            reply: m.Reply = task.result()
        except asyncio.CancelledError:
            reply = unfinished(rid)
        except BaseException as exc:  # whatever the work ended with, its request is answered
            self.log.error("request failed", error=repr(exc))
            reply = m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
        self.encode(reply, out, rid)
        self._write(out)
        self._pump()

    def _pump(self) -> None:
        """Dispatch waiting requests while there is room; read again once they fit."""
        if self.transport is None:
            return
        if self.pending and self._may_dispatch():
            out = bytearray()
            while self.pending and self._may_dispatch():
                body = self.pending.popleft()
                self.pending_bytes -= len(body)
                self._request(body, out)
            if out:
                self._write(out)
        if self._ending is not None:
            self._end_when_answered()
            return
        if self._paused_reading and self.pending_bytes <= self.limits.max_pending_bytes // 2:
            self._resume_reading()
        self._rearm(False)

    def shed(self, total: int, limit: int) -> None:
        """The hub holds more bytes of partial frames than ``limit`` and this connection holds the
        largest: its partial frame is dropped, nothing more is read, and once the requests before it
        are answered the connection ends with an error saying why."""
        held = self.held
        self.decoder.discard()
        if self._ending is None:
            self._ending = m.Error(
                0,
                m.ErrorCode.LIMIT,
                f"closing the connection: hookd holds {total} bytes of partial frames across its connections, over its "
                f"limit of {limit} (--max-held-bytes); this connection's, {held} bytes, is the largest",
            )
        self._pause_reading()
        self._disarm()
        self._end_when_answered()

    def _end_when_answered(self) -> None:
        """Send the error that ends the connection once every request before it has its reply."""
        if self._ending is not None and not self.inflight and not self.pending:
            self.send_now(self._ending)
            self._ending = None
            self.close()

    def _pause_reading(self) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            self._paused_reading = True
            transport.pause_reading()
            if self._deadline is not None and self._deadline.kind == "frame":
                self._disarm()  # a frame cannot complete while the daemon does not read

    def _resume_reading(self) -> None:
        transport = self.transport
        self._paused_reading = False
        if transport is not None and not transport.is_closing():
            transport.resume_reading()

    def wind_up(self) -> int:
        """At the end of a shutdown drain: every request not answered yet gets its error now,
        including those still unread in the socket (see :func:`edgewire.last_read`)."""
        return wind_up(self)

    # ------------------------------------------------------------- writing

    def encode(self, reply: m.Reply, out: bytearray, rid: int | None = None) -> None:
        """Append ``reply`` to ``out``; a reply that cannot be encoded becomes an error naming why."""
        if self.codec.encode_or_none(reply, out) is not None:
            encode_degraded(self.codec, reply, out, rid, self.log)

    def send(self, reply: m.Reply) -> None:
        """Send one frame now (invokes); raises intake.Unfit when it cannot be encoded."""
        out = bytearray()
        problem = self.codec.encode_or_none(reply, out)
        if problem is not None:
            raise intake.Unfit(f"{type(reply).__name__.lower()}: {problem}")
        self._write(out)

    def send_now(self, reply: m.Reply) -> None:
        out = bytearray()
        self.encode(reply, out)
        self._write(out)

    def _write(self, data: bytes | bytearray) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        transport.write(data)
        if transport.get_write_buffer_size() > self.limits.max_write_buffer:
            self._not_read(transport)

    def _not_read(self, transport: asyncio.Transport) -> None:
        # The peer stopped reading: drop it rather than hold its bytes without bound. Its
        # callbacks fail now (on_disconnect), not at their timeouts.
        self.log.warning("closing connection: peer does not read", queued=transport.get_write_buffer_size())
        transport.abort()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
