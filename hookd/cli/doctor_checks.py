"""The checks of `hookd doctor`: each looks at one thing a guard depends on and says ok, warn or fail,
with a one-line fix. They read the running daemon (through the client), its process (/proc) and the
files it uses; nothing here changes anything."""

from __future__ import annotations

import fcntl
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, NamedTuple

Status = Literal["ok", "warn", "fail"]
SUN_PATH_MAX = 107  # sockaddr_un.sun_path is 108 bytes on Linux, one of them the terminating NUL


class Check(NamedTuple):
    name: str
    status: Status
    message: str
    fix: str = ""


class Daemon(NamedTuple):
    """What the running daemon told us, and what we could read of its process."""

    socket: str
    status: Any = None  # hookd_client Status, None when unreachable
    hooks: Any = None  # HookList of every hook in force
    here: Any = None  # HookList for the current directory as a project
    environ: dict[str, str] | None = None  # /proc/<pid>/environ, when readable
    error: str = ""


# ------------------------------------------------------------------ the daemon


def environ_of(pid: int) -> dict[str, str] | None:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    env = {}
    for item in raw.split(b"\0"):
        key, eq, value = item.partition(b"=")
        if eq:
            env[os.fsdecode(key)] = os.fsdecode(value)
    return env


def reach(socket: str, cwd: str) -> Daemon:
    from hookd_client import Client, HookdError

    try:
        with Client(socket, name="hookd-doctor", timeout=10) as client:
            status = client.status()
            hooks = client.list_hooks()
            here = client.list_hooks(cwd)
    except (HookdError, OSError) as exc:
        return Daemon(socket, error=getattr(exc, "message", None) or str(exc))
    return Daemon(socket, status, hooks, here, environ_of(status.pid))


def daemon_check(d: Daemon) -> Check:
    if d.status is None:
        return Check(
            "daemon", "fail", f"not reachable on {d.socket}: {d.error}", "start it: `systemctl --user start hookd.socket` or `hookd serve`"
        )
    s = d.status
    return Check("daemon", "ok", f"hookd {s.version}, pid {s.pid}, on {d.socket}, up {s.uptime:.0f} s")


def socket_check(socket: str) -> Check:
    size = len(os.fsencode(socket))
    if size > SUN_PATH_MAX:
        return Check(
            "socket path",
            "fail",
            f"{socket} is {size} bytes, over the {SUN_PATH_MAX}-byte limit of a Unix socket path",
            "set $HOOKD_SOCKET (or $XDG_RUNTIME_DIR) to a shorter path",
        )
    return Check("socket path", "ok", f"{size} bytes (limit {SUN_PATH_MAX})")


# ------------------------------------------------------------------ one daemon per state directory


def state_dir_of(environ: dict[str, str]) -> str:
    base = environ.get("XDG_STATE_HOME") or os.path.join(environ.get("HOME") or "/", ".local", "state")
    return os.path.realpath(os.path.join(base, "hookd"))


def _is_hookd_serve(argv: list[str]) -> bool:
    if "serve" not in argv:
        return False
    head = argv[: argv.index("serve")]
    return any(os.path.basename(a) == "hookd" for a in head) or any(a == "-m" and b == "hookd" for a, b in itertools.pairwise(head))


def daemons_on(state: str) -> Iterator[int]:
    """Pids of this user's `hookd serve` processes whose state directory is ``state``."""
    uid = os.getuid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            argv = [os.fsdecode(a) for a in Path(entry.path, "cmdline").read_bytes().split(b"\0") if a]
        except OSError:
            continue
        if not _is_hookd_serve(argv):
            continue
        env = environ_of(int(entry.name))
        if env is not None and state_dir_of(env) == state:
            yield int(entry.name)


def lock_holder(path: str) -> tuple[int | None, bool] | None:
    """(pid written in the lock file, whether some process holds its lock); None without the file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        text = os.read(fd, 64).decode("ascii", "replace").strip()
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            held = False
        except BlockingIOError:
            held = True
    finally:
        os.close(fd)  # also drops the shared lock we may have taken
    return (int(text) if text.isdigit() else None), held


def _others(pids: list[int]) -> str:
    """ "another hookd daemon (pid 7) uses", or for several "other hookd daemons (pids 7, 9) use"."""
    listed = ", ".join(map(str, pids))
    return f"another hookd daemon (pid {listed}) uses" if len(pids) == 1 else f"other hookd daemons (pids {listed}) use"


def state_check(d: Daemon) -> Check:
    env = d.environ if d.environ is not None else dict(os.environ)
    state = state_dir_of(env)
    answering = d.status.pid if d.status is not None else None
    found = set(daemons_on(state))
    lock = lock_holder(os.path.join(state, "daemon.lock"))
    note = ""
    if lock is None:
        note = "; no daemon.lock there (a daemon that does not lock it), running processes checked"
    else:
        pid, held = lock
        if held and pid is not None:
            found.add(pid)
        elif not held:
            note = "; daemon.lock is not held by anyone"
    others = sorted(found - {answering}) if answering is not None else sorted(found)
    if answering is not None and others:
        them = f"the other one (`kill {others[0]}`)" if len(others) == 1 else f"the others (`kill {' '.join(map(str, others))}`)"
        return Check(
            "state directory",
            "fail",
            f"{_others(others)} {state}, besides pid {answering} on {d.socket}: their journals and seqs collide",
            f"stop {them} or give {'it' if len(others) == 1 else 'each'} its own $XDG_STATE_HOME",
        )
    if answering is None and len(others) > 1:
        pids = ", ".join(map(str, others))
        return Check("state directory", "fail", f"{len(others)} hookd daemons (pids {pids}) use {state}", "stop all but one")
    if answering is None and others:
        return Check(
            "state directory",
            "warn",
            f"pid {others[0]} holds {state}, but no daemon answers on {d.socket}: a daemon started there would refuse to run",
            f"point $HOOKD_SOCKET at that daemon's socket, or stop it (`kill {others[0]}`)",
        )
    return Check("state directory", "ok", f"{state}: one daemon{note}")
