"""The blocking client: one Unix socket, one request at a time, no event loop.

A plain blocking socket is the cheapest call path in Python (measured ~50 us
per call faster than asyncio on this class of machine), which matters when an
agent calls ``decide`` before every tool.

Once the client serves a handler, a background reader thread takes
the socket over (hookd_client/serving.py); until then nothing of it runs.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import verify
from .api import Api, build
from .errors import ConnectionLost, DaemonNotRunning, HookdError, NotSent, welcome_of
from .framing import HEADER, HEADER_SIZE, BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import PROTOCOL_VERSION, Hello, Reply, Request, Subscribe, Welcome
from .paths import default_socket_path
from .receive import Receiver
from .stream import Subscription

if TYPE_CHECKING:
    from .serving import ServeLoop


_pack_header = HEADER.pack_into
_unpack_header = HEADER.unpack_from


def _send(sock: socket.socket, data: bytes, path: str) -> None:
    """Write one request; a connection that refuses it (the peer is gone) raises NotSent."""
    try:
        sock.sendall(data)
    except TimeoutError:
        raise
    except OSError as exc:
        raise NotSent(f"connection to {path} failed before the request was sent: {exc}") from None


def client_name() -> str:
    """The name a client gives the daemon unless told one: the program it runs in, as `hookd status` lists it."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "python"


class Client(Api):
    """Synchronous hookd client. Use as a context manager or call :meth:`close`."""

    def __init__(
        self,
        path: str | None = None,
        *,
        name: str | None = None,
        timeout: float | None = None,
        connect: bool = True,
        reconnect: float = 10.0,
        handler_threads: int = 16,
    ) -> None:
        self.path = path or default_socket_path()
        self.name = name or client_name()
        self.timeout = timeout
        self.welcome: Welcome | None = None
        self._sock: socket.socket | None = None
        self._codec = reply_codec()
        self._decode = self._codec.decoder.decode  # the fast path's; errors are named by _codec.decode
        self._encode_into = self._codec.encoder.encode_into
        self._out = bytearray()  # the request being sent, header first
        self._decoder = FrameDecoder(1 << 30)
        self._receiver = Receiver()
        self._pending: dict[int, Reply] = {}
        self.reconnect = reconnect
        self.handler_threads = handler_threads
        self.restore_errors: list[HookdError] = []
        self._served: ServeLoop | None = None
        self._init_ids()
        if connect:
            self.connect()

    # ------------------------------------------------------------ connection

    def connect(self) -> Welcome:
        """Connect, greet, and restore this client's sessions and handlers before anything else."""
        served = self._served
        if served is not None:
            return served.wait_ready()
        if self._sock is not None:
            assert self.welcome is not None
            return self.welcome
        welcome = self._handshake()
        if self._book.serving:
            return self._start_serving(restore=True).wait_ready()
        self.restore_errors = []
        for req in self._book.restore_requests(self._ids):
            err = self._book.restored(req, self._roundtrip(req))
            if err is not None:
                self.restore_errors.append(err)
        return welcome

    def _handshake(self) -> Welcome:
        sock = verify.connect(self.path, self.timeout)
        self._sock = sock
        self._decoder = FrameDecoder(1 << 30)
        try:
            self.welcome = welcome_of(self._roundtrip(Hello(self._next_id(), PROTOCOL_VERSION, self.name, os.getpid())))
        except BaseException:
            self._drop_socket()
            raise
        return self.welcome

    def close(self) -> None:
        served, self._served = self._served, None
        if served is not None:
            served.close()
        self._drop_socket()

    def _drop_socket(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> Client:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ round trip

    def _call(self, request: Request | Callable[[], Request], convert: Callable[[Reply], Any]) -> Any:
        served = self._served
        if served is not None:
            return convert(served.roundtrip(request))
        attempts = (1, 2)
        sock = self._sock
        if sock is not None and not callable(request):
            # The common case, written out, as every agent makes it before and after each tool: the
            # request encoded into a buffer kept for it and sent; a failure to send is the general
            # path's (a new connection, once).
            out = self._out
            self._encode_into(request, out, HEADER_SIZE)
            _pack_header(out, 0, len(out) - HEADER_SIZE)
            try:
                sock.sendall(out)
            except TimeoutError as exc:
                raise self._lost(exc) from None
            except OSError:
                self._drop_socket()
                attempts = (2,)
            else:
                rid: int = request.id  # type: ignore[union-attr]
                if self._pending or self._decoder.held:
                    return convert(self._reply(sock, rid))
                # The reply, whole, in one read, is decoded here; anything else (a partial
                # frame, several frames, another request's reply) is read again by _reply.
                receiver = self._receiver
                try:
                    n = sock.recv_into(receiver.buf)
                except (ConnectionResetError, TimeoutError) as exc:
                    raise self._lost(exc) from None
                if n > HEADER_SIZE and _unpack_header(receiver.buf)[0] + HEADER_SIZE == n:
                    try:
                        msg = self._decode(receiver.view[HEADER_SIZE:n])
                    except Exception:  # _reply names what is wrong with it
                        msg = None
                    if msg is not None and msg.id == rid:
                        return convert(msg)
                return convert(self._reply(sock, rid, n))
        # A connection found dead before the request was written (the daemon restarted while
        # this client was idle) is not the caller's problem: send it on a new one, once.
        for attempt in attempts:
            if self._sock is None:
                self._reconnect()
            try:
                return convert(self._roundtrip(build(request)))
            except NotSent:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _reconnect(self) -> None:
        """Connect again after a lost connection, retrying with capped backoff for ``reconnect`` seconds."""
        if self.welcome is None:
            self.connect()
            return
        deadline = time.monotonic() + self.reconnect
        delay = 0.02
        while True:
            try:
                self.connect()
                return
            except (DaemonNotRunning, ConnectionLost):
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    # ------------------------------------------------------------ handlers

    def _serve(self) -> None:
        if self._served is None:
            if self._sock is None:
                self._reconnect()
            if self._served is None:
                self._start_serving(restore=False)

    def _start_serving(self, restore: bool) -> ServeLoop:
        from .serving import ServeLoop

        self._served = ServeLoop(self, restore)
        return self._served

    def _roundtrip(self, request: Request) -> Reply:
        sock = self._sock
        if sock is None:
            raise ConnectionLost("the client is closed")
        try:
            _send(sock, self._codec.encode(request), self.path)
        except (ConnectionLost, TimeoutError) as exc:
            raise self._lost(exc) from None
        rid: int = request.id  # type: ignore[attr-defined]
        return self._reply(sock, rid)

    def _reply(self, sock: socket.socket, rid: int, n: int = -1) -> Reply:
        """Read until the reply to request ``rid`` has come (replies to earlier requests are kept).
        ``n``: bytes a caller already read into the receiver's buffer (-1: none)."""
        try:
            if n >= 0:
                if not n:
                    raise ConnectionLost()
                for body in self._decoder.feed(self._receiver.view[:n]):
                    msg = self._codec.decode(body)
                    self._pending[msg.id] = msg
            while True:
                reply = self._pending.pop(rid, None)
                if reply is not None:
                    return reply
                data = self._receiver.recv(sock)
                if not data:
                    raise ConnectionLost()
                for body in self._decoder.feed(data):  # decoded before the next read reuses the buffer
                    msg = self._codec.decode(body)
                    self._pending[msg.id] = msg  # the reply to this request, or to an earlier one's
        except (ConnectionLost, ConnectionResetError, FrameTooLarge, BadMessage, TimeoutError) as exc:
            raise self._lost(exc) from None

    def _lost(self, exc: BaseException) -> HookdError:
        """The connection is dropped; the error that says why."""
        self._drop_socket()
        if isinstance(exc, ConnectionLost):
            return exc
        if isinstance(exc, TimeoutError):
            return HookdError("timeout", f"no reply within {self.timeout} s")
        return ConnectionLost(f"connection to {self.path} failed: {exc}")

    def _stream(self, request: Subscribe, timeout: float | None) -> Subscription:
        return Subscription(self.path, self.name, request, timeout)
