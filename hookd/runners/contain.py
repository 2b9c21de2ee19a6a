"""Containment of hook process trees: nothing a hook starts outlives its kill.

A hook runs in its own process group, but a descendant that calls ``setsid``
leaves that group, and a group kill does not reach it. So every process hookd
starts for a hook (a spawned command hook, a persistent worker, a plugin host)
carries a mark in its environment, ``HOOKD_RUN=<daemon token>/<run>``, which
its descendants inherit whatever group or session they move to. Killing a run
(timeout, reload, stop) kills its group, every process whose ancestry leads to
its leader, and every process that carries its mark (found by walking /proc).

If the daemon itself is killed (SIGKILL, OOM), a small sentinel process it
started at its first hook notices (its stdin, a pipe from the daemon, reaches
EOF) and kills every process carrying the daemon's token. The sentinel runs in
a session of its own and ignores the terminal's signals, so a Ctrl-C to the
daemon's group does not take it before its sweep.

Where hookd may make cgroups (a systemd unit with ``Delegate=yes``; see
cgroups.py), every run also gets a cgroup of its own, and a kill writes its
``cgroup.kill``: that reaches even a descendant that both drops the mark from
its environment and leaves the leader's ancestry (double fork, re-parented to
init). Without cgroups, such a descendant (or one in another user's name) can
still survive; docs/warm-hooks.md says so.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import structlog

from hookd.runners import procs
from hookd.runners.cgroups import RunGroups

log = structlog.get_logger("hookd.contain")


def _enter(fd: int) -> None:
    # Runs in the new process between fork and exec: one write, and no failure that would stop
    # the hook from starting (the parent's adopt() tries again).
    with contextlib.suppress(OSError):
        os.write(fd, b"0")


class Containment:
    """Marks runs and kills their trees. One per daemon (``default()``)."""

    def __init__(self, token: str | None = None, sentinel: bool = True) -> None:
        self.token = token or f"{os.getpid()}.{secrets.token_hex(4)}"
        self._runs = itertools.count(1)
        self._want_sentinel = sentinel
        self._sentinel: subprocess.Popen[bytes] | None = None
        self.cgroups = RunGroups(self.token)

    def mark(self, env: dict[str, str] | None) -> tuple[dict[str, str], str]:
        """A copy of ``env`` (None: the daemon's) with a fresh run mark; returns it and the mark."""
        self.ensure_sentinel()
        tag = f"{self.token}/{next(self._runs)}"
        marked = dict(os.environ if env is None else env)
        marked[procs.MARK] = tag
        return marked, tag

    def ensure_sentinel(self) -> None:
        if not self._want_sentinel or (self._sentinel is not None and self._sentinel.poll() is None):
            return
        cgroup_root = self.cgroups.open()
        try:
            self._sentinel = subprocess.Popen(
                [sys.executable, "-m", "hookd.runners.sentinel", self.token, *([cgroup_root] if cgroup_root else [])],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
            )
        except OSError as exc:
            self._want_sentinel = False
            log.error("could not start the hook sentinel: hook processes may outlive a killed daemon", error=str(exc))

    @contextlib.contextmanager
    def entering(self, tag: str | None) -> Iterator[Callable[[], None] | None]:
        """A function for the new process to call before it runs the hook (``preexec_fn``): it
        moves itself into the run's cgroup, so nothing it starts, however fast, is outside it.
        None where there are no cgroups (nothing is added to the spawn). :meth:`adopt` after the
        start stays the net for a process that could not enter."""
        fd = self.cgroups.procs_fd(tag) if tag else None
        if fd is None:
            yield None
            return
        try:
            yield functools.partial(_enter, fd)
        finally:
            os.close(fd)

    def adopt(self, pid: int, tag: str | None) -> None:
        """A process was just started for a hook run: put it in the run's cgroup, where there are any."""
        if tag:
            self.cgroups.adopt(pid, tag)

    def release(self, tag: str | None) -> None:
        """The run's process is gone (and reaped)."""
        self.cgroups.release(tag)

    def close(self) -> None:
        """The daemon is stopping: kill what is left in its cgroups, let the sentinel sweep the rest and exit."""
        self.cgroups.close()
        sentinel, self._sentinel = self._sentinel, None
        if sentinel is not None and sentinel.stdin is not None:
            with contextlib.suppress(OSError):
                sentinel.stdin.close()

    def kill(self, leader: int, tag: str | None) -> int:
        """SIGKILL the run's group, its leader's descendants and everything carrying ``tag``.

        Returns how many processes besides the group were found. Repeated until a
        walk finds nothing new, so a process forking while it is killed is caught too.
        """
        self.cgroups.kill(tag)
        procs.killpg(leader, signal.SIGKILL)
        found: set[int] = set()
        for _ in range(5):
            pids = procs.members(leader, tag) - found - {os.getpid()}
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            found |= pids
        return len(found)


_DEFAULT: Containment | None = None


def default() -> Containment:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Containment()
    return _DEFAULT
