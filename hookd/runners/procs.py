"""The processes of a hook run, read from /proc, and the kill of a run's cgroup tree.

The daemon's containment and its hook sentinel (hookd/runners/sentinel.py) share these. The sentinel lives as
long as the daemon and starts with the first hook run of each daemon, so this module imports nothing beyond
the standard library: no asyncio, no logging set-up (tests/unit/runners/test_sentinel_imports.py holds it to that).
"""

from __future__ import annotations

import contextlib
import os
import time

MARK = "HOOKD_RUN"
_PROC = "/proc"


def write(path: str, text: str) -> None:
    """One write of ``text`` to a cgroup file, as the kernel takes them."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def kill_tree(root: str) -> None:
    """Kill every process under ``root`` and remove its cgroups (the daemon stops or died)."""
    with contextlib.suppress(OSError):
        write(os.path.join(root, "cgroup.kill"), "1")
    deadline = time.monotonic() + 5
    while True:
        try:
            names = [n for n in os.listdir(root) if n.startswith("run-")]
        except OSError:
            return
        for name in names:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.join(root, name))
        with contextlib.suppress(OSError):
            os.rmdir(root)
            return
        if time.monotonic() > deadline:
            return
        time.sleep(0.01)  # killed processes leave their cgroups a moment after cgroup.kill


def killpg(pgid: int, sig: int) -> None:
    """Signal a hook's process group, gone or not."""
    if pgid <= 0:  # never started: killpg(0) would hit the daemon's own group
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _stat(pid: str) -> tuple[int, str] | None:
    """(ppid, state) of a live process; None if it is gone or a zombie."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # comm may hold spaces and parentheses: the fields follow the last ')'.
    fields = data[data.rfind(b")") + 2 :].split()
    state = fields[0].decode()
    if state in ("Z", "X"):
        return None
    return int(fields[1]), state


def _carries(pid: str, needle: bytes, prefix: bool) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as f:
            environ = f.read()
    except OSError:
        return False
    return any(entry == needle or (prefix and entry.startswith(needle)) for entry in environ.split(b"\x00"))


def members(leader: int, tag: str | None, prefix: bool = False) -> set[int]:
    """Live processes of a run: the leader's descendants and those carrying its mark."""
    children: dict[int, list[int]] = {}
    needle = f"{MARK}={tag}".encode() if tag else None
    marked: set[int] = set()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return set()
    for name in names:
        if not name.isdigit():
            continue
        st = _stat(name)
        if st is None:
            continue
        pid = int(name)
        children.setdefault(st[0], []).append(pid)
        if needle is not None and _carries(name, needle, prefix):
            marked.add(pid)
    tree: set[int] = set()
    stack = [leader] if leader > 0 else []
    stack += marked
    while stack:
        pid = stack.pop()
        if pid in tree:
            continue
        tree.add(pid)
        stack.extend(children.get(pid, ()))
    if leader > 0 and _stat(str(leader)) is None:
        tree.discard(leader)
    return tree
