"""Reading a hook file the way hostile input is read.

A hook file is named by a project the daemon was merely told about (a cloned
repository, say), so it is read defensively: only a regular file (a FIFO, a
device such as ``/dev/zero`` or a directory is refused without reading a
byte), opened non-blocking, checked again on the open descriptor (the name may
be swapped between the look and the open), and at most :data:`MAX_BYTES`
bytes. The daemon calls :func:`read` off its event loop (in a thread), so even
a slow file system never holds a client's answer.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass

MAX_BYTES = 1 << 20  # 1 MiB: far above any real hook file, far below what could hurt the daemon

Signature = tuple[int, int, int, int]


class Unreadable(Exception):
    """The file exists but is not something the daemon will read; the message says why."""


@dataclass(frozen=True, slots=True)
class Read:
    """One read of a hook file: its bytes (None: no such file), the stat signature taken before
    reading, and why it could not be read (then ``data`` is None and ``error`` says why)."""

    path: str
    data: bytes | None
    sig: Signature | None
    error: str | None = None

    @property
    def sha(self) -> str | None:
        return hashlib.sha256(self.data).hexdigest() if self.data is not None else None


def _signature(st: os.stat_result) -> Signature:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _check(st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a directory" if stat.S_ISDIR(st.st_mode) else "a device or socket"
        raise Unreadable(f"not a regular file ({kind}); hook files must be regular files")
    if st.st_size > limit:
        raise Unreadable(f"{st.st_size} bytes, over the limit of {limit} bytes for a hook file")


def read_bytes(path: str, limit: int = MAX_BYTES) -> bytes | None:
    """The bytes of the regular file ``path`` (None when it does not exist). Raises Unreadable, OSError."""
    try:
        _check(os.stat(path), limit)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        _check(os.fstat(fd), limit)
        chunks = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while we read
            raise Unreadable(f"over the limit of {limit} bytes for a hook file")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read(path: str, limit: int = MAX_BYTES) -> Read:
    """Read ``path`` as a hook file; never raises."""
    try:
        sig: Signature | None = _signature(os.stat(path))
    except OSError:
        sig = None
    try:
        return Read(path, read_bytes(path, limit), sig)
    except Unreadable as exc:
        return Read(path, None, sig, str(exc))
    except OSError as exc:
        return Read(path, None, sig, f"cannot read: {exc.strerror or exc}")


def content_hash(path: str, limit: int = MAX_BYTES) -> str | None:
    """SHA-256 of a regular file's bytes, for change detection; a marker for what cannot be read, None when absent."""
    try:
        data = read_bytes(path, limit)
    except (Unreadable, OSError) as exc:
        return f"unreadable: {exc}"
    return hashlib.sha256(data).hexdigest() if data is not None else None
