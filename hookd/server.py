"""The socket side: one asyncio.Protocol per connection, and the listener.

A connection feeds received bytes to the sans-IO decoder, hands each request
to the Daemon and writes every reply that is ready after one read in a single
write (pipelined clients cost one syscall per batch, not per frame). Replies
that must wait for hooks are written when they are done. Bad bytes get an
error reply; only an oversized frame closes the connection, since its length
header can no longer be trusted to find the next frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
import struct
import sys
from collections.abc import Coroutine
from typing import Any

import structlog
from hookd_client import messages as m
from hookd_client.framing import BadMessage, FrameDecoder, FrameTooLarge, request_codec

from .daemon import Daemon

log = structlog.get_logger("hookd.server")

_PEERCRED = struct.Struct("3i")


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size)
    pid, uid, gid = _PEERCRED.unpack(raw)
    return pid, uid, gid


class Connection(asyncio.Protocol):
    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.codec = request_codec()
        self.decoder = FrameDecoder(daemon.settings.max_frame)
        self.transport: asyncio.Transport | None = None
        self.greeted = False
        self.peer = 0
        self.client = ""
        self.inflight: set[asyncio.Task[Any]] = set()
        self._paused_reading = False
        self._paused_writing = False
        self.stream: Any = None  # the event-bus subscriber on this connection, if any
        self.body_size = 0
        self.log = log

    # ----------------------------------------------------------- lifecycle

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        sock = transport.get_extra_info("socket")
        try:
            pid, uid, _ = peer_credentials(sock)
        except OSError:
            pid, uid = 0, os.getuid()
        self.peer = pid
        self.log = log.bind(peer_pid=pid)
        if uid != os.getuid():
            self.log.warning("refused a peer of another user", peer_uid=uid)
            self.transport = None  # never counted as a connection
            transport.abort()
            return
        self.daemon.connections += 1
        self.daemon.on_connect(self)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is None:
            return
        self.transport = None
        self.daemon.connections -= 1
        self.daemon.on_disconnect(self)

    def pause_writing(self) -> None:
        # The client does not read its replies: stop reading its requests too.
        self._paused_writing = True
        if self.stream is not None:
            self.stream.pause_writing()
        self._update_reading()

    def resume_writing(self) -> None:
        self._paused_writing = False
        self._update_reading()
        if self.stream is not None:
            self.stream.resume_writing()

    def _update_reading(self) -> None:
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        should_pause = self._paused_writing or len(self.inflight) >= self.daemon.settings.max_inflight
        if should_pause and not self._paused_reading:
            self._paused_reading = True
            transport.pause_reading()
        elif not should_pause and self._paused_reading:
            self._paused_reading = False
            transport.resume_reading()

    # ------------------------------------------------------------- reading

    def data_received(self, data: bytes) -> None:
        out = bytearray()
        try:
            bodies = self.decoder.feed(data)
        except FrameTooLarge as exc:
            self.codec.encode_into(m.Error(0, m.ErrorCode.FRAME_TOO_LARGE, str(exc)), out)
            self.log.warning("closing connection: frame too large", declared=exc.declared, limit=exc.limit)
            self._write(out)
            self.close()
            return
        for body in bodies:
            self._one(body, out)
        if out:
            self._write(out)

    def _one(self, body: bytes, out: bytearray) -> None:
        try:
            request = self.codec.decode(body)
        except BadMessage as exc:
            self.codec.encode_into(m.Error(exc.request_id, m.ErrorCode.BAD_REQUEST, str(exc)), out)
            return
        if not self.greeted:
            self.codec.encode_into(self._hello(request), out)
            return
        if isinstance(request, m.Hello):
            self.codec.encode_into(m.Error(request.id, m.ErrorCode.BAD_REQUEST, "hello was already sent"), out)
            return
        if type(request) is m.InvokeResult:  # an answer to the daemon's invoke, not a request (issue 5)
            self.daemon.invoke_result(self, request)
            return
        if self.daemon.closing:
            self.codec.encode_into(
                m.Error(request.id, m.ErrorCode.SHUTTING_DOWN, "the daemon is shutting down"),
                out,  # type: ignore[attr-defined]
            )
            return
        self.body_size = len(body)  # the event bus bounds its history's memory by this
        result = self.daemon.handle(self, request)
        if isinstance(result, m.Reply):
            self.codec.encode_into(result, out)
        else:
            self._later(result)

    def _hello(self, request: m.Request) -> m.Reply:
        rid = getattr(request, "id", 0)
        if not isinstance(request, m.Hello):
            return m.Error(rid, m.ErrorCode.HELLO_REQUIRED, "the first request on a connection must be hello")
        if request.protocol != m.PROTOCOL_VERSION:
            self.log.warning("protocol version mismatch", client=request.client, protocol=request.protocol)
            reply = m.Error(
                rid,
                m.ErrorCode.VERSION_MISMATCH,
                f"this daemon speaks protocol {m.PROTOCOL_VERSION}, the client {request.client!r} "
                f"speaks {request.protocol}; upgrade the older side",
            )
            asyncio.get_running_loop().call_soon(self.close)
            return reply
        self.greeted = True
        self.client = request.client
        self.log = self.log.bind(client=request.client)
        return self.daemon.welcome(rid)

    def _later(self, work: Coroutine[Any, Any, m.Reply]) -> None:
        task = asyncio.ensure_future(work)
        self.inflight.add(task)
        task.add_done_callback(self._finished)
        if len(self.inflight) >= self.daemon.settings.max_inflight:
            self._update_reading()

    def _finished(self, task: asyncio.Task[m.Reply]) -> None:
        self.inflight.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is not None:
            self.log.error("reply failed", error=repr(exc))
            return
        out = bytearray()
        self.codec.encode_into(task.result(), out)
        self._write(out)
        if self._paused_reading:
            self._update_reading()

    # ------------------------------------------------------------- writing

    def send(self, reply: m.Reply) -> None:
        out = bytearray()
        self.codec.encode_into(reply, out)
        self._write(out)

    def _write(self, data: bytes | bytearray) -> None:
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(data)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


# ----------------------------------------------------------------- listening


class AlreadyRunning(Exception):
    pass


def _is_live(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(path)
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT):
            return False
        raise
    finally:
        probe.close()
    return True


class Listener:
    """A listening socket and whether its file is ours to unlink."""

    def __init__(self, sock: socket.socket, path: str, owned: bool) -> None:
        self.sock = sock
        self.path = path
        self.owned = owned
        self._inode = os.stat(path).st_ino if owned else 0

    def remove(self) -> None:
        """Unlink the socket file, if we bound it and it is still ours (not a successor's)."""
        if not self.owned:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.path).st_ino == self._inode:
                os.unlink(self.path)


def bind_socket(path: str) -> Listener:
    """Bind a listening socket at ``path``: directory 0700, socket 0600, stale file replaced."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, mode=0o700, exist_ok=True)
    st = os.stat(directory)
    if st.st_uid != os.getuid():
        raise PermissionError(f"socket directory {directory} belongs to uid {st.st_uid}, not to you")
    if stat.S_IMODE(st.st_mode) & 0o077 and directory != "/tmp":
        os.chmod(directory, 0o700)
    if os.path.lexists(path):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise FileExistsError(f"{path} exists and is not a socket; remove it or choose another --socket")
        if _is_live(path):
            raise AlreadyRunning(f"another hookd is already listening on {path}")
        os.unlink(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        sock.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(1024)
    sock.setblocking(False)
    return Listener(sock, path, owned=True)


async def start_server(daemon: Daemon, sock: socket.socket) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    extra: dict[str, Any] = {}
    if sys.version_info >= (3, 13) and isinstance(loop, asyncio.BaseEventLoop):
        # Listener.remove() alone decides whether the file goes: an inherited socket belongs to the service manager.
        extra["cleanup_socket"] = False
    return await loop.create_unix_server(lambda: Connection(daemon), sock=sock, **extra)
