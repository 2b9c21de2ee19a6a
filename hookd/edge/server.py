"""The socket side: the listening socket, and the set of open connections.

A connection (connection.py) is one asyncio.Protocol. The Hub counts them
against the connection cap and, at the end of a shutdown drain, answers every
request still open on each and closes them. ``bind_socket`` makes the socket's
directory safe before binding: never a symlink, owned by the user, writable by
nobody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
import sys
import time
from typing import TYPE_CHECKING, Any

import structlog

from hookd.core.limits import EdgeLimits, connection_cap
from hookd.edge import heaptrim
from hookd.edge.connection import Connection
from hookd.edge.wire import peer_credentials

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon

log = structlog.get_logger("hookd.server")

__all__ = ["AlreadyRunning", "Connection", "Hub", "Listener", "bind_socket", "peer_credentials", "start_server", "stop_listening"]


# Once the partial frames held have shrunk by this many bytes since their peak, the memory they
# took goes back to the system (heaptrim), at most once per TRIM_DELAY.
TRIM_STEP = 8 << 20
TRIM_DELAY = 0.5


class Hub:
    """Every open connection: the cap on how many, the bytes of partial frames they hold together,
    and their wind-up at shutdown."""

    def __init__(self, daemon: Daemon, limits: EdgeLimits | None = None) -> None:
        self.daemon = daemon
        self.limits = limits or getattr(daemon.settings, "edge", None) or EdgeLimits()
        self.cap = connection_cap(self.limits, daemon.settings.max_hook_processes)
        # Never below the frame limit: a single frame of the largest size must always fit.
        self.max_held = max(self.limits.max_held_bytes, daemon.settings.max_frame + 4)
        self.open: set[Connection] = set()
        self.held = 0  # bytes of partial frames held by all connections
        self.holding: set[Connection] = set()  # the connections holding some
        self._held_peak = 0
        self._trim: asyncio.TimerHandle | None = None
        self._empty: asyncio.Event | None = None

    def admit(self, conn: Connection) -> bool:
        if len(self.open) >= self.cap:
            return False
        self.open.add(conn)
        return True

    def gone(self, conn: Connection) -> None:
        self.open.discard(conn)
        if conn.held:
            self.hold(conn, 0)  # its bytes are let go with it
        if not self.open and self._empty is not None:
            self._empty.set()

    def hold(self, conn: Connection, held: int) -> None:
        """``conn`` now holds ``held`` bytes of a partial frame. Past the bound on them all, the
        connections holding the most are shed (see Connection.shed) until the rest fit."""
        self._account(conn, held)
        if self.held > self.max_held:
            self._shed()
        if self.held > self._held_peak:
            self._held_peak = self.held
        elif self._held_peak - self.held >= TRIM_STEP and self._trim is None:
            self._trim = asyncio.get_running_loop().call_later(TRIM_DELAY, self._trimmed)

    def _account(self, conn: Connection, held: int) -> None:
        before = conn.held
        conn.held = held
        self.held += held - before
        if held and not before:
            self.holding.add(conn)
            conn.held_since = time.monotonic()
        elif before and not held:
            self.holding.discard(conn)

    def _shed(self) -> None:
        total = self.held
        while self.held > self.max_held and self.holding:
            # The largest partial frame, the oldest of equals: never a small request while a larger one is held.
            worst = max(self.holding, key=_shed_order)
            log.warning("closing a connection: partial frames held over the limit", peer_pid=worst.peer, held=worst.held, total=total)
            worst.shed(total, self.max_held)
            self._account(worst, 0)

    def _trimmed(self) -> None:
        self._trim = None
        heaptrim.trim()
        self._held_peak = self.held

    async def wind_up(self, timeout: float) -> int:
        """Answer every request still open (shutting_down), close every connection, and wait
        up to ``timeout`` seconds for their last bytes to leave. The number of requests answered so."""
        answered = 0
        for conn in list(self.open):
            try:
                answered += conn.wind_up()
            except Exception:  # one connection's failure must not leave the others unanswered
                log.exception("could not answer a connection's open requests at the stop", peer_pid=conn.peer)
            conn.close()
        if answered:
            log.warning("the drain ended with requests unfinished; each was answered shutting_down", requests=answered)
        if self.open:
            self._empty = asyncio.Event()
            deadline = time.monotonic() + timeout
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(max(0.0, deadline - time.monotonic())):
                    await self._empty.wait()
        return answered


def _shed_order(conn: Connection) -> tuple[int, float]:
    return conn.held, -conn.held_since


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


def safe_directory(directory: str) -> None:
    """Create ``directory`` 0700 if missing, and make sure it is the user's own.

    Refused (PermissionError, saying why): a symlink (whoever planted it chooses where
    the socket goes), not a directory, owned by another user, or writable by group
    or others (they could swap the socket for their own). Never chmods through a link:
    read-only group/other bits are cleared on a descriptor opened without following one.
    """
    parent = os.path.dirname(directory.rstrip("/"))
    if parent and not os.path.isdir(parent):
        os.makedirs(parent, mode=0o700, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(directory, 0o700)
    st = os.lstat(directory)
    if stat.S_ISLNK(st.st_mode):
        raise PermissionError(f"socket directory {directory} is a symbolic link; refusing to follow it (remove it)")
    if not stat.S_ISDIR(st.st_mode):
        raise PermissionError(f"socket directory {directory} is not a directory")
    if st.st_uid != os.getuid():
        raise PermissionError(f"socket directory {directory} belongs to uid {st.st_uid}, not to you (uid {os.getuid()}); remove it")
    if stat.S_IMODE(st.st_mode) & 0o022:
        raise PermissionError(
            f"socket directory {directory} is writable by others (mode {stat.S_IMODE(st.st_mode):o}); chmod 700 it or remove it"
        )
    if stat.S_IMODE(st.st_mode) & 0o077:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            if os.fstat(fd).st_ino == st.st_ino:
                os.fchmod(fd, 0o700)
        finally:
            os.close(fd)


def bind_socket(path: str) -> Listener:
    """Bind a listening socket at ``path``: directory 0700 and the user's own, socket 0600, stale file replaced."""
    directory = os.path.dirname(path) or "."
    safe_directory(directory)
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


async def start_server(daemon: Daemon, sock: socket.socket, hub: Hub | None = None) -> asyncio.Server:
    loop = asyncio.get_running_loop()
    hub = hub or Hub(daemon)
    extra: dict[str, Any] = {}
    if sys.version_info >= (3, 13) and isinstance(loop, asyncio.BaseEventLoop):
        # Listener.remove() alone decides whether the file goes: an inherited socket belongs to the service manager.
        extra["cleanup_socket"] = False
    return await loop.create_unix_server(lambda: Connection(daemon, hub), sock=sock, **extra)


async def stop_listening(server: asyncio.Server, listener: Listener, daemon: Daemon, hub: Hub) -> int:
    """Take no more connections, without dropping those already made; how many were taken here.

    A client's connect succeeds as soon as the kernel queues it on the listening socket,
    so it may already have sent its hello and a request; closing the listener would reset
    it unanswered. So the socket file goes first (a new client finds no daemon and knows
    its request never left), then every queued connection is accepted and served like any
    other (each request answered ``shutting_down``), and only then does the listener close.
    """
    listener.remove()
    loop = asyncio.get_running_loop()
    taken = 0
    with contextlib.suppress(OSError):
        listener.sock.setblocking(False)
    # Bounded: an inherited socket keeps its file (its service manager's), so clients may still come.
    for _ in range(hub.cap):
        try:
            sock, _ = listener.sock.accept()
        except OSError:  # nothing queued (EAGAIN), or the listener is gone
            break
        sock.setblocking(False)
        try:
            await loop.connect_accepted_socket(lambda: Connection(daemon, hub), sock)
        except OSError:
            sock.close()
            continue
        taken += 1
    server.close()
    if taken:
        log.info("connections queued at the stop were taken to be answered", connections=taken)
    return taken
