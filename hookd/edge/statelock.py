"""One daemon per state directory: ``<state dir>/daemon.lock``, held for the daemon's life.

Two daemons on one state directory would hand out the same seqs, write into one
journal and overwrite each other's trust and toggle records. The lock is an
advisory ``flock(LOCK_EX | LOCK_NB)`` on ``daemon.lock``, which holds the
holder's pid as decimal text and a newline (``hookd doctor`` reads it). The
kernel releases it when the process dies, however it dies, so a stale file from
a crash never blocks a start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os

LOCK_NAME = "daemon.lock"


class StateLocked(Exception):
    """Another live process holds the state directory. ``pid`` is its pid (None if unreadable)."""

    def __init__(self, directory: str, pid: int | None) -> None:
        holder = f"pid {pid}" if pid is not None else "another process (its pid is unreadable)"
        super().__init__(
            f"the state directory {directory} is in use by {holder}: another hookd daemon runs for it; "
            "stop it, or give this one its own XDG_STATE_HOME"
        )
        self.directory = directory
        self.pid = pid


def holder(directory: str) -> int | None:
    """The pid written in the lock file, or None (no file, or not a pid). Says nothing about liveness."""
    try:
        with open(os.path.join(directory, LOCK_NAME), "rb") as f:
            text = f.read(32)
    except OSError:
        return None
    try:
        return int(text.strip() or b"x")
    except ValueError:
        return None


def is_held(directory: str) -> bool:
    """True when some process holds the lock now (a probe that takes and drops it otherwise)."""
    try:
        fd = os.open(os.path.join(directory, LOCK_NAME), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class StateLock:
    """The held lock. :meth:`release` (or process exit) frees it."""

    def __init__(self, directory: str, fd: int) -> None:
        self.directory = directory
        self.path = os.path.join(directory, LOCK_NAME)
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is None:
            return
        # Emptied first: a reader that finds the file after we are gone sees no pid to blame.
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, 0)
        os.close(self._fd)
        self._fd = None


def acquire(directory: str) -> StateLock:
    """Hold ``directory``'s lock or raise :class:`StateLocked` naming the holder.

    OSError when the directory or the file cannot be created.
    """
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, LOCK_NAME)
    # Not O_TRUNC: the file is emptied only once we hold the lock, never under the holder.
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StateLocked(directory, holder(directory)) from None
    except BaseException:
        os.close(fd)
        raise
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return StateLock(directory, fd)
