"""The journal's files on disk: where they are, reading them, repairing a torn end.

``events.jsonl`` is current, ``events.jsonl.1`` the previous one, up to
``.KEEP``. Every line is one JSON event ending in a newline; a line without its
newline is torn (the daemon died, or the disk filled, mid-write). Readers skip
torn and malformed lines; the writer cuts a torn end off before it appends, so
its first new line never fuses with the torn piece.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import msgspec
from hookd_client.messages import Event

from hookd.core.lazylog import LazyLogger

_BLOCK = 64 * 1024
_decoder = msgspec.json.Decoder(Event)
log = LazyLogger("hookd.journal")  # the daemon logs here (rotation); `hookd tail` reads the files without it


def default_path(environ: dict[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/hookd/events.jsonl`` (``~/.local/state`` when unset)."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(state, "hookd", "events.jsonl")


def files(path: str, keep: int | None = None) -> list[str]:
    """The journal's files that exist, oldest first (``path.N`` ... ``path.1``, ``path``)."""
    rotated = []
    n = 1
    while keep is None or n <= keep:
        name = f"{path}.{n}"
        if not os.path.exists(name):
            break
        rotated.append(name)
        n += 1
    out = list(reversed(rotated))
    if os.path.exists(path):
        out.append(path)
    return out


def _complete_end(f: object, size: int) -> int:
    """Offset just past the file's last newline (0 when it has none), reading backwards in blocks."""
    end = size
    while end > 0:
        start = max(0, end - _BLOCK)
        data = os.pread(f.fileno(), end - start, start)  # type: ignore[attr-defined]
        i = data.rfind(b"\n")
        if i >= 0:
            return start + i + 1
        end = start
    return 0


def lines_backward(name: str) -> Iterator[bytes]:
    """The file's complete lines, newest first, whatever their length; a torn end is not one."""
    with open(name, "rb") as f:
        end = _complete_end(f, os.fstat(f.fileno()).st_size)
        # ``end`` is just past a newline; each step finds the newline before the line that ends there.
        while end > 0:
            stop = end - 1  # the line's own newline
            pieces: list[bytes] = []
            pos = stop
            while pos > 0:
                start = max(0, pos - _BLOCK)
                data = os.pread(f.fileno(), pos - start, start)
                i = data.rfind(b"\n")
                if i >= 0:
                    pieces.append(data[i + 1 :])
                    pos = start + i + 1
                    break
                pieces.append(data)
                pos = start
            line = b"".join(reversed(pieces))
            if line.strip():
                yield line
            end = pos


def last_event(path: str) -> Event | None:
    """The newest event in the journal that reads back, or None when there is none."""
    for name in reversed(files(path)):
        try:
            for line in lines_backward(name):
                with contextlib.suppress(msgspec.DecodeError):
                    return _decoder.decode(line)
        except OSError:
            continue
    return None


def cut_torn_end(name: str) -> int:
    """Truncate ``name`` after its last complete line; the number of bytes cut (0: nothing was torn)."""
    try:
        fd = os.open(name, os.O_RDWR)
    except FileNotFoundError:
        return 0
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        if os.pread(fd, 1, size - 1) == b"\n":
            return 0
        end = _complete_end(f, size)
        os.ftruncate(fd, end)
        return size - end


def _newest_time(name: str) -> float | None:
    for line in lines_backward(name):
        with contextlib.suppress(msgspec.DecodeError):
            return _decoder.decode(line).time
    return None


def read(path: str, since: float | None = None) -> Iterator[Event]:
    """Every event in the journal, oldest first; with ``since`` (Unix time) only newer ones.

    All files are opened before reading, so a rotation while reading neither
    loses nor repeats a file; events are de-duplicated by seq anyway.
    Malformed lines (a torn write after a crash) are skipped.
    """
    handles = []
    for name in files(path):
        with contextlib.suppress(OSError):
            handles.append(open(name, "rb"))  # noqa: SIM115 - closed below
    last = -1
    try:
        for i, f in enumerate(handles):
            if since is not None and i < len(handles) - 1:
                newest = _newest_time(f.name)
                if newest is not None and newest < since:
                    continue  # the whole file is older than asked
            for line in f:
                if not line.endswith(b"\n"):
                    break  # being written right now, or torn
                try:
                    event = _decoder.decode(line)
                except msgspec.DecodeError:
                    continue
                if event.seq <= last:
                    continue
                last = event.seq
                if since is None or event.time >= since:
                    yield event
    finally:
        for f in handles:
            f.close()


def open_to_append(path: str, whole: int | None = None) -> tuple[int, int]:
    """The journal file opened to append, and its size; with ``whole`` (where its last whole line
    ends, when it may end in a torn one) cut back to that first."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        size = os.fstat(fd).st_size
        if whole is not None and size > whole:
            os.ftruncate(fd, whole)
            size = whole
    except OSError:
        os.close(fd)
        raise
    return fd, size


def retire(fd: int, size: int, path: str) -> None:
    """Close a full journal file as it rotates: synced, so that all of its pages can go, then let go.
    Its lines are written: a failed sync is logged, a failed close loses none."""
    try:
        os.fdatasync(fd)
    except OSError as exc:
        log.warning("journal file not synced before rotating", path=path, error=str(exc))
    try:
        let_go(fd, size)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def shift(path: str, keep: int) -> None:
    """Rotate by one: ``path`` becomes ``path.1``, each ``path.N`` becomes ``path.N+1``, and the
    oldest past ``keep`` goes (with ``keep`` 0, ``path`` itself goes)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(f"{path}.{keep}")
    for n in range(keep - 1, 0, -1):
        with contextlib.suppress(FileNotFoundError):
            os.replace(f"{path}.{n}", f"{path}.{n + 1}")
    if keep > 0:
        os.replace(path, f"{path}.1")
    else:
        os.unlink(path)


def let_go(fd: int, upto: int) -> None:
    """Let the kernel drop the file's cached pages before ``upto``: those on disk go now, dirty
    ones are started on their way there (and go at a later call).

    A journal is read back rarely, and its writes are cheaper on pages the kernel recycles than on
    fresh ones: on a VM whose memory the host backs on first touch, paced 4 MiB appends cost
    1.5-4.6 us of CPU a line on fresh pages and 0.25-0.28 on pages let go this way."""
    if upto > 0:  # a length of 0 would mean the whole file
        with contextlib.suppress(OSError):
            os.posix_fadvise(fd, 0, upto, os.POSIX_FADV_DONTNEED)
