"""The blocking client: one Unix socket, one request at a time, no event loop.

A plain blocking socket is the cheapest call path in Python (measured ~50 us
per call faster than asyncio on this class of machine), which matters when an
agent calls ``decide`` before every tool.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Callable, Iterable
from typing import Any

from .api import Api
from .errors import ConnectionLost, DaemonNotRunning, HookdError, ProtocolMismatch
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import PROTOCOL_VERSION, Error, Hello, Reply, Request, Welcome
from .paths import default_socket_path
from .stream import Since, Subscription, subscribe_request

_RECV = 256 * 1024


def _client_name() -> str:
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
    ) -> None:
        self.path = path or default_socket_path()
        self.name = name or _client_name()
        self.timeout = timeout
        self.welcome: Welcome | None = None
        self._sock: socket.socket | None = None
        self._codec = reply_codec()
        self._decoder = FrameDecoder(1 << 30)
        self._pending: dict[int, Reply] = {}
        self._init_ids()
        if connect:
            self.connect()

    # ------------------------------------------------------------ connection

    def connect(self) -> Welcome:
        if self._sock is not None:
            assert self.welcome is not None
            return self.welcome
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            sock.close()
            raise DaemonNotRunning(self.path, exc.strerror or type(exc).__name__) from None
        except OSError:
            sock.close()
            raise
        self._sock = sock
        self._decoder = FrameDecoder(1 << 30)
        try:
            reply = self._roundtrip(Hello(self._next_id(), PROTOCOL_VERSION, self.name, os.getpid()))
        except BaseException:
            self.close()
            raise
        if isinstance(reply, Error):
            self.close()
            if reply.code == "version_mismatch":
                raise ProtocolMismatch(reply.code, reply.message)
            raise HookdError(reply.code, reply.message)
        assert isinstance(reply, Welcome)
        self.welcome = reply
        return reply

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> Client:
        self.connect()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ round trip

    def _call(self, request: Request, convert: Callable[[Reply], Any]) -> Any:
        if self._sock is None:
            self.connect()
        return convert(self._roundtrip(request))

    def _roundtrip(self, request: Request) -> Reply:
        sock = self._sock
        if sock is None:
            raise ConnectionLost("the client is closed")
        rid: int = request.id  # type: ignore[attr-defined]
        try:
            sock.sendall(self._codec.encode(request))
            while True:
                reply = self._pending.pop(rid, None)
                if reply is not None:
                    return reply
                data = sock.recv(_RECV)
                if not data:
                    raise ConnectionLost()
                for body in self._decoder.feed(data):
                    msg = self._codec.decode(body)
                    self._pending[msg.id] = msg
        except (ConnectionLost, BrokenPipeError, ConnectionResetError, FrameTooLarge, BadMessage) as exc:
            self.close()
            if isinstance(exc, ConnectionLost):
                raise
            raise ConnectionLost(f"connection to {self.path} failed: {exc}") from None
        except TimeoutError:
            self.close()
            raise HookdError("timeout", f"no reply within {self.timeout} s") from None

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
        timeout: float | None = None,
    ) -> Subscription:
        """Iterate over the daemon's events (on a connection of its own); see hookd_client.stream.

        ``points`` are globs (``tool.*``); ``since`` is a seq (int) or a duration
        (``"10m"``, a timedelta) to replay from memory first; ``follow=False``
        stops after that replay.
        """
        request = subscribe_request(points, sessions, projects, since, follow, queue, queue_bytes)
        return Subscription(self.path, self.name, request, timeout)
