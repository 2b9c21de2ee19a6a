"""Is the process at the socket path really this user's hookd? Checked before anything is sent.

Whoever can put a socket at the path answers every guard. With
``XDG_RUNTIME_DIR`` unset the path is ``/tmp/hookd-$UID/hookd.sock``, and any
local user can create that directory first, or plant a symbolic link there,
and answer every decide with allow. So before a client sends its hello:

- the socket's directory is a real directory (not a symbolic link), owned by
  this user (or root), and not writable by group or others;
- the socket file is owned by this user;
- the process that listens on it runs as this user (``SO_PEERCRED``, Linux).

Any failure raises :class:`DaemonNotTrusted`, saying what is wrong and how to
fix it. The checks cost two ``lstat`` calls and one ``getsockopt``.
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from typing import TYPE_CHECKING

from .errors import BadSocketPath, DaemonNotRunning, DaemonNotTrusted

if TYPE_CHECKING:
    from collections.abc import Callable

_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid
# sun_path is 108 bytes with its terminating NUL.
MAX_PATH_BYTES = 107
_KIND = {
    stat.S_IFDIR: "a directory",
    stat.S_IFREG: "a regular file",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}
_FIX = "remove it, or set XDG_RUNTIME_DIR (or HOOKD_SOCKET) to a directory only you can write"


def _who(uid: int) -> str:
    return f"uid {uid}"


def _origin(path: str) -> str:
    """Where the path came from, for the fix: the variable that named it, else the option."""
    if os.environ.get("HOOKD_SOCKET") == path:
        return "$HOOKD_SOCKET"
    if os.environ.get("XDG_RUNTIME_DIR") and path.startswith(os.environ["XDG_RUNTIME_DIR"]):
        return "$XDG_RUNTIME_DIR (or set $HOOKD_SOCKET)"
    return "--socket (or $HOOKD_SOCKET)"


def check_shape(path: str) -> None:
    """Refuse a path no Unix socket can have, before any system call: said plainly, with the fix."""
    if not path:
        raise BadSocketPath(path, "the path is empty", "set $HOOKD_SOCKET to the daemon's socket, or unset it to use the default")
    if "\0" in path:
        raise BadSocketPath(path, "the path contains a NUL character", f"fix {_origin(path)}")
    size = len(os.fsencode(path))
    if size > MAX_PATH_BYTES:
        raise BadSocketPath(
            path,
            f"it is {size} bytes long and a Unix socket path holds at most {MAX_PATH_BYTES}",
            f"use a shorter path in {_origin(path)}, e.g. /tmp/hookd-{os.getuid()}/hookd.sock",
        )


def _stat(how: Callable[[str], os.stat_result], target: str, path: str) -> os.stat_result | None:
    """``how(target)``, None when it fails; a socket ``path`` with a part that is not a directory is refused."""
    try:
        return how(target)
    except NotADirectoryError:
        raise BadSocketPath(path, "a part of it before the last is not a directory", f"fix {_origin(path)}") from None
    except OSError:
        return None


def check_kind(path: str) -> None:
    """Refuse an existing path that is not a socket (a directory, a regular file...)."""
    st = _stat(os.stat, path, path)
    if st is None or stat.S_ISSOCK(st.st_mode):
        return
    kind = _KIND.get(stat.S_IFMT(st.st_mode), "not a socket")
    if stat.S_ISDIR(st.st_mode):
        fix = f"name the socket file, not its directory: e.g. {os.path.join(path, 'hookd.sock')}, in {_origin(path)}"
    else:
        fix = f"point {_origin(path)} at the daemon's socket (the daemon creates it), or move this file away if it is left over"
    raise BadSocketPath(path, f"it is {kind}, not a socket", fix)


def check_path(path: str) -> None:
    """Refuse a socket path another user controls, or no socket can have. A path that does not exist is left to connect()."""
    check_shape(path)
    me = os.getuid()
    directory = os.path.dirname(os.path.abspath(path))
    st = _stat(os.lstat, directory, path)
    if st is None:
        return
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(directory)
        except OSError:
            target = "?"
        raise DaemonNotTrusted(
            f"{directory} is a symbolic link (to {target}), not a directory: another user may be redirecting hookd's socket; {_FIX}"
        )
    if st.st_uid not in (me, 0):
        raise DaemonNotTrusted(
            f"{directory} is owned by {_who(st.st_uid)}, not you ({_who(me)}): another user may be impersonating hookd; {_FIX}"
        )
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        who = " and ".join(w for w, bit in (("group", stat.S_IWGRP), ("others", stat.S_IWOTH)) if st.st_mode & bit)
        raise DaemonNotTrusted(
            f"{directory} is writable by {who} (mode {stat.S_IMODE(st.st_mode):o}): anyone who can write there can "
            f"replace hookd's socket; run `chmod go-w {directory}`, or {_FIX}"
        )
    try:
        sst = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(sst.st_mode):
        raise DaemonNotTrusted(f"{path} is a symbolic link, not hookd's socket; {_FIX}")
    if sst.st_uid != me:
        raise DaemonNotTrusted(
            f"{path} is owned by {_who(sst.st_uid)}, not you ({_who(me)}): another user may be impersonating hookd; {_FIX}"
        )
    check_kind(path)


def check_peer(sock: socket.socket, path: str) -> None:
    """Refuse a connected peer that does not run as this user (where the system can tell)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:  # not Linux: the path checks above still hold
        return
    try:
        _pid, uid, _gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, option, _UCRED.size))
    except OSError as exc:
        raise DaemonNotTrusted(f"cannot tell which user listens on {path} ({exc.strerror or exc}); nothing was sent") from None
    me = os.getuid()
    if uid != me:
        raise DaemonNotTrusted(
            f"the process listening on {path} runs as {_who(uid)}, not as you ({_who(me)}): another user may be "
            f"impersonating hookd; stop it and {_FIX}"
        )


def connect(path: str, timeout: float | None) -> socket.socket:
    """A blocking connection to the daemon at ``path``, verified before anything is sent."""
    check_path(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        check_peer(sock, path)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        sock.close()
        raise DaemonNotRunning(path, exc.strerror or type(exc).__name__) from None
    except PermissionError as exc:
        sock.close()
        fix = f"check the permissions of {path} and its directories"
        raise BadSocketPath(path, f"connecting was refused: {exc.strerror}", fix) from None
    except NotADirectoryError:
        sock.close()
        raise BadSocketPath(path, "a part of it before the last is not a directory", f"fix {_origin(path)}") from None
    except BaseException:
        sock.close()
        raise
    return sock
