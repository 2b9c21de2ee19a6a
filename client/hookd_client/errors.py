"""Exceptions a client raises. Each carries the daemon's stable error ``code``."""

from __future__ import annotations

from .messages import Error, Reply, Welcome


class HookdError(Exception):
    """The daemon answered a request with an error reply."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class DaemonNotRunning(HookdError):
    """Nothing listens on the socket path."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            "not_running",
            f"no hookd daemon is listening on {path} ({reason}); start one with "
            "`hookd serve` (or `systemctl --user start hookd.socket`), or point "
            "$HOOKD_SOCKET at a running daemon",
        )
        self.path = path


class BadSocketPath(HookdError):
    """The socket path cannot be a daemon's socket (too long, a directory, a regular file...): nothing was tried."""

    def __init__(self, path: str, problem: str, fix: str) -> None:
        super().__init__("bad_socket_path", f"{path!r} cannot be hookd's socket: {problem}; {fix}")
        self.path = path
        self.problem = problem
        self.fix = fix


class DaemonNotTrusted(HookdError):
    """The socket path, or the process listening on it, is not this user's: nothing was sent."""

    def __init__(self, message: str) -> None:
        super().__init__("untrusted_daemon", message)


class ConnectionLost(HookdError):
    """The connection closed while a request was in flight; its outcome is unknown."""

    def __init__(self, detail: str = "the daemon closed the connection") -> None:
        super().__init__("connection_lost", detail)


class ProtocolMismatch(HookdError):
    """The daemon speaks another protocol version."""


class NotSent(ConnectionLost):
    """The connection was found dead before the request was written: it may be sent on a new one.

    A client sends such a request once more, on a fresh connection. When that one is refused too
    (the daemon is stopping, or gone again), the caller gets NotSent: the request never reached
    a daemon, so it is safe to send again. Any other ConnectionLost is for a request that was
    in flight.
    """


def unexpected(reply: Reply, wanted: type[Reply]) -> HookdError:
    """What to raise for ``reply`` where a ``wanted`` one was due: the daemon's error (ProtocolMismatch
    when it speaks another protocol version), else ``bad_reply``."""
    if isinstance(reply, Error):
        if reply.code == "version_mismatch":
            return ProtocolMismatch(reply.code, reply.message)
        return HookdError(reply.code, reply.message)
    return HookdError("bad_reply", f"expected a {wanted.__name__} reply, got {type(reply).__name__}")


def welcome_of(reply: Reply) -> Welcome:
    """The daemon's answer to a Hello as its Welcome, else the error it names (:func:`unexpected`)."""
    if isinstance(reply, Welcome):
        return reply
    raise unexpected(reply, Welcome)
