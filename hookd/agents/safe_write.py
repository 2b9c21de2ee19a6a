"""Rewrite a file an agent may be editing at the same moment, without losing the agent's edit.

An agent writes its own settings while it runs (Claude Code's ``/permissions``, Codex's trust records),
so a read-modify-write that renames over the file could drop what the agent wrote in between. Here the
change is computed from the file's current bytes under an exclusive lock on its directory (so two hookd
processes take turns), written to a private temporary file and flushed to disk, and the file is read
again just before the rename: if its bytes changed meanwhile, the change is computed again from the new
bytes. The rename is atomic and the directory is flushed after it, so a crash leaves the old file or the
new one, never a mix. A symlinked file is written at its target and stays a link.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

# Times a change is computed again when the file keeps changing under it, before giving up.
ATTEMPTS = 20
# What ``compute`` returns to leave the file as it is.
UNCHANGED = object()
# What ``compute`` returns to remove the file.
REMOVE = object()


class Busy(Exception):
    """The file kept changing while hookd tried to write it; nothing was written."""


def target(path: str) -> Path:
    """Where the bytes of ``path`` live: a symlinked file is updated at its target, and stays a link."""
    return Path(os.path.realpath(path))


def read(path: str | Path) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on ``directory``, for hookd processes writing files in it (no lock file is left)."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _temporary(where: Path, data: bytes, mode: int) -> str:
    # mkstemp creates the file with O_EXCL and mode 0600: no one else can open it before the chmod.
    fd, tmp = tempfile.mkstemp(prefix=f".{where.name}.", dir=where.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return tmp


def update(path: str, compute: Callable[[bytes | None], object], mode: int | None = None) -> bytes | None:
    """Replace the file at ``path`` with ``compute(its current bytes or None)``: new bytes, UNCHANGED or REMOVE.

    ``mode``: the new file's permissions (default: the file's own, else 0644 less the umask). The
    directory must exist. Returns the bytes ``compute`` was given (what the file held before). Raises
    Busy, OSError, or whatever ``compute`` raises (then nothing is written)."""
    where = target(path)
    with locked(where.parent):
        for _ in range(ATTEMPTS):
            current = read(where)
            new = compute(current)
            if new is UNCHANGED or new == current:
                return current
            if new is REMOVE:
                if current is None:
                    return current
                if read(where) != current:
                    continue
                os.unlink(where)
                _fsync_dir(where.parent)
                return current
            assert isinstance(new, bytes)
            if mode is not None:
                chosen = mode
            elif current is not None:
                chosen = where.stat().st_mode & 0o777
            else:
                chosen = 0o644 & ~_umask()
            tmp = _temporary(where, new, chosen)
            try:
                if read(where) != current:
                    continue  # written meanwhile (the agent): computed again from its bytes
                os.replace(tmp, where)
                tmp = ""
            finally:
                if tmp:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
            _fsync_dir(where.parent)
            return current
    raise Busy(f"{path} kept changing while hookd tried to write it; nothing was changed: try again")


def replace(path: str, data: bytes, mode: int) -> None:
    """``data`` at ``path`` with permissions ``mode``, in one step: a private temporary file renamed over it."""
    where = Path(path)
    tmp = _temporary(where, data, mode)
    try:
        os.replace(tmp, where)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(where.parent)


def write_private(path: str, data: bytes) -> None:
    """``data`` at ``path`` (0600), atomically, in a directory created 0700 if need be."""
    Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    replace(path, data, 0o600)


def missing_dirs(path: str) -> list[str]:
    """The directories above ``path`` that do not exist yet, outermost first."""
    missing: list[str] = []
    d = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(d):
        missing.append(d)
        d = os.path.dirname(d)
    return list(reversed(missing))


def remove_dirs(created: list[str]) -> None:
    """Remove the directories install created, innermost first, while they are empty."""
    for d in reversed(created):
        try:
            os.rmdir(d)
        except OSError:
            break
