"""Socket activation without libsystemd: take the listening socket the service manager passes.

The manager (systemd's hookd.socket, or `systemd-socket-activate`) binds the
socket, listens, and starts the daemon with the socket as fd 3 and
``LISTEN_PID`` / ``LISTEN_FDS`` set. Because the manager keeps its own copy of
the socket, clients that connect while the daemon starts or restarts wait in
the backlog instead of being refused. The daemon must therefore never unlink
the socket file: it belongs to the manager.
"""

from __future__ import annotations

import os
import socket
from collections.abc import MutableMapping

from hookd.edge.server import Listener

LISTEN_FDS_START = 3
_VARIABLES = ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES")


class ActivationError(Exception):
    """The manager passed something hookd cannot serve on; the daemon must not start."""


def listen_fds(environ: MutableMapping[str, str] | None = None) -> int:
    """How many sockets the manager passed to this process (0: not activated), as sd_listen_fds(1) counts them.

    The variables are removed either way, so that hook processes do not believe
    they were socket-activated too.
    """
    env = os.environ if environ is None else environ
    pid, fds = env.get("LISTEN_PID"), env.get("LISTEN_FDS")
    for name in _VARIABLES:
        env.pop(name, None)
    if not pid or not fds:
        return 0
    try:
        for_pid = int(pid)
    except ValueError:
        raise ActivationError(f"LISTEN_PID={pid!r} is not a process id") from None
    if for_pid != os.getpid():
        # Inherited from a parent that was activated, not meant for us.
        return 0
    try:
        count = int(fds)
    except ValueError:
        raise ActivationError(f"LISTEN_FDS={fds!r} is not a number") from None
    if count < 0:
        raise ActivationError(f"LISTEN_FDS={fds!r} is negative")
    return count


def _enum_name(kind: type, value: int) -> str:
    try:
        return kind(value).name
    except ValueError:
        return str(value)


def _describe(sock: socket.socket) -> tuple[int, int, bool]:
    domain = sock.getsockopt(socket.SOL_SOCKET, socket.SO_DOMAIN)
    kind = sock.getsockopt(socket.SOL_SOCKET, socket.SO_TYPE)
    listening = bool(sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN))
    return domain, kind, listening


def socket_name(sock: socket.socket) -> str:
    """The socket's address as a user would write it: a path, or ``@name`` for an abstract socket."""
    name = sock.getsockname()
    if isinstance(name, bytes):
        return "@" + name[1:].decode(errors="replace") if name.startswith(b"\0") else name.decode(errors="replace")
    return name or "(unnamed)"


def adopt(fd: int = LISTEN_FDS_START) -> Listener:
    """Wrap the inherited ``fd`` as a Listener, after checking it is a listening Unix stream socket."""
    try:
        sock = socket.socket(fileno=fd)
    except OSError as exc:
        raise ActivationError(
            f"socket activation passed fd {fd}, but it is not an open socket ({exc.strerror}); check the ListenStream= line of hookd.socket"
        ) from None
    try:
        domain, kind, listening = _describe(sock)
    except OSError as exc:
        sock.detach()
        raise ActivationError(f"cannot inspect the socket passed as fd {fd}: {exc.strerror}") from None
    problems = []
    if domain != socket.AF_UNIX:
        problems.append(f"its family is {_enum_name(socket.AddressFamily, domain)}, not AF_UNIX")
    if kind != socket.SOCK_STREAM:
        problems.append(f"its type is {_enum_name(socket.SocketKind, kind)}, not SOCK_STREAM")
    if not listening:
        problems.append("it is not listening (Accept=yes in hookd.socket passes connections, not the listener)")
    if problems:
        sock.detach()
        raise ActivationError(
            f"the socket passed as fd {fd} cannot serve hookd: {'; '.join(problems)}. hookd.socket needs ListenStream=<path> and Accept=no"
        )
    # Passed fds are inheritable; hook processes must not hold the listener open.
    os.set_inheritable(fd, False)
    sock.setblocking(False)
    return Listener(sock, socket_name(sock), owned=False)


def inherited_listener(environ: MutableMapping[str, str] | None = None) -> Listener | None:
    """The socket the service manager passed, or None when the daemon was started without activation."""
    count = listen_fds(environ)
    if count == 0:
        return None
    if count != 1:
        raise ActivationError(
            f"socket activation passed {count} sockets (LISTEN_FDS={count}); hookd listens on exactly one, "
            "so hookd.socket must have a single ListenStream= line"
        )
    return adopt(LISTEN_FDS_START)
