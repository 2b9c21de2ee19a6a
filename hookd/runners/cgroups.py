"""Hook runs in cgroups, where hookd may make them: a kill reaches every process of a run.

Marks and ancestry (contain.py) find a hook's descendants unless one both
drops the mark from its environment and leaves the leader's ancestry. A
cgroup (v2) holds every process forked inside it, whatever it does to its
environment, group or session, and ``cgroup.kill`` kills them all at once.

Where it applies: hookd's own cgroup is on a cgroup2 hierarchy, is not the
hierarchy's root (a per-user daemon does not make cgroups at the top of the
machine's tree), and hookd may create a child in it: under systemd that is a
unit with ``Delegate=yes`` (systemd/hookd.service). Elsewhere, or with
``HOOKD_CGROUPS=0``, hookd says why once and relies on marks and ancestry.

Layout: ``<own cgroup>/hookd-<token>/run-<n>``, one per process hookd starts
for a hook. A run's cgroup is removed once it is empty; one still populated
(processes just killed leave it a moment later, or a hook's background process
lives on) is tried again shortly, then less and less often, and everything is
killed and removed when the daemon stops (or by the sentinel when the daemon dies).
"""

from __future__ import annotations

import asyncio
import contextlib
import os

import structlog

from hookd.runners import procs

log = structlog.get_logger("hookd.contain")

SWITCH = "HOOKD_CGROUPS"
_LINGER_MAX = 256  # populated run cgroups kept for a later retry; past this the oldest are killed
_RETRY_FIRST = 0.05  # seconds before a populated run cgroup is tried again; doubles up to _RETRY_MAX
_RETRY_MAX = 5.0


def own_cgroup(proc: str = "/proc/self") -> tuple[str, str] | None:
    """(the cgroup2 mount point, this process's cgroup path in it), or None without cgroup2."""
    path = mount = None
    try:
        with open(f"{proc}/cgroup", encoding="utf-8") as f:
            for line in f:
                if line.startswith("0::"):
                    path = line[3:].strip()
        with open(f"{proc}/mountinfo", encoding="utf-8") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                fields = left.split()
                if right.split(" ", 1)[0] == "cgroup2" and len(fields) > 4 and fields[3] == "/":
                    mount = fields[4]
                    break
    except OSError:
        return None
    if path is None or mount is None:
        return None
    return mount, path


class RunGroups:
    """A daemon's run cgroups; inert (``root`` None) where cgroups cannot be used."""

    def __init__(self, token: str, environ: dict[str, str] | None = None) -> None:
        self.token = token
        self.root: str | None = None
        self.why_not = ""
        self._opened = False
        self._environ = os.environ if environ is None else environ
        self._runs: dict[str, str] = {}  # run tag -> its cgroup directory
        self._lingering: list[str] = []
        self._retry: asyncio.TimerHandle | None = None
        self._retry_delay = _RETRY_FIRST

    def open(self) -> str | None:
        """Make ``hookd-<token>`` in hookd's cgroup (once); None, and ``why_not`` says why, if it cannot."""
        if self._opened:
            return self.root
        self._opened = True
        if self._environ.get(SWITCH, "") == "0":
            self.why_not = f"{SWITCH}=0"
        elif (found := own_cgroup()) is None:
            self.why_not = "no cgroup2 hierarchy"
        elif found[1] == "/":
            self.why_not = "hookd runs in the root cgroup (not a delegated service)"
        else:
            own = os.path.join(found[0], found[1].lstrip("/"))
            root = os.path.join(own, f"hookd-{self.token}")
            try:
                os.mkdir(root, 0o755)
                if not os.path.exists(os.path.join(root, "cgroup.kill")):
                    os.rmdir(root)
                    raise OSError("this kernel has no cgroup.kill")
                self.root = root
            except OSError as exc:
                self.why_not = f"cannot make a cgroup in {own}: {exc.strerror or exc}"
        if self.root is not None:
            log.info("hook runs contained in cgroups", root=self.root)
        else:
            log.info("hook runs not in cgroups; marks and ancestry contain them", why=self.why_not)
        return self.root

    def procs_fd(self, tag: str) -> int | None:
        """The run's ``cgroup.procs``, open for writing, for a process to enter before it runs the
        hook's code (None without cgroups, or when the run's cgroup cannot be made)."""
        root = self.open()
        if root is None or not tag:
            return None
        path = os.path.join(root, "run-" + tag.rpartition("/")[2])
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o755)
            return os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC)
        except OSError as exc:
            log.warning("a hook run's cgroup could not be made", path=path, error=str(exc))
            return None

    def adopt(self, pid: int, tag: str) -> bool:
        """Move a just-started hook process into a cgroup of its own run (before it can fork much)."""
        root = self.open()
        if root is None or not tag:
            return False
        self._retry_lingering()
        path = os.path.join(root, "run-" + tag.rpartition("/")[2])
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o755)
            procs.write(os.path.join(path, "cgroup.procs"), str(pid))
        except OSError as exc:
            log.warning("a hook process could not be put in its cgroup", pid=pid, error=str(exc))
            with contextlib.suppress(OSError):
                os.rmdir(path)
            return False
        self._runs[tag] = path
        return True

    def kill(self, tag: str | None) -> None:
        path = self._runs.get(tag) if tag else None
        if path is not None:
            with contextlib.suppress(OSError):
                procs.write(os.path.join(path, "cgroup.kill"), "1")

    def release(self, tag: str | None) -> None:
        """The run is over: remove its cgroup, or keep it for later while something still runs in it."""
        path = self._runs.pop(tag, None) if tag else None
        if path is None:
            return
        try:
            os.rmdir(path)
        except OSError:
            self._lingering.append(path)
            if len(self._lingering) > _LINGER_MAX:
                oldest = self._lingering.pop(0)
                with contextlib.suppress(OSError):
                    procs.write(os.path.join(oldest, "cgroup.kill"), "1")
                self._lingering.append(oldest)
            self._retry_soon()

    def _retry_soon(self) -> None:
        """Try the populated run cgroups again shortly, not only when the next hook runs."""
        if self._retry is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a tool, a test): the next adopt or close tries again
        self._retry = loop.call_later(self._retry_delay, self._retried)

    def _retried(self) -> None:
        self._retry = None
        self._retry_lingering()
        if self._lingering:
            self._retry_delay = min(self._retry_delay * 2, _RETRY_MAX)
            self._retry_soon()
        else:
            self._retry_delay = _RETRY_FIRST

    def _retry_lingering(self) -> None:
        if not self._lingering:
            return
        kept = []
        for path in self._lingering:
            try:
                os.rmdir(path)
            except FileNotFoundError:
                continue
            except OSError:
                kept.append(path)
        self._lingering = kept

    def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if self.root is not None:
            procs.kill_tree(self.root)
            self.root = None
        self._runs.clear()
        self._lingering.clear()
