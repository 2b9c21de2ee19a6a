"""Hook files: reading, validating and swapping in the hooks of the global and project files.

Loading is explicit and never part of planning a call. A project's files are
loaded the first time a request names the project (:meth:`HookFiles.ensure_project`),
read in a thread (see hookd/config/hookfile.py: regular files only, at most 1 MiB),
and swapped in on the event loop, one file at a time, under the scope's lock
so two loads never interleave. The global files are read once synchronously
at start (before any client is served) and in a thread afterwards.

A file that is rejected keeps its previous version in force; at start (or a
project's first load) that is the version last accepted, kept in the state
directory (hookd/config/accepted.py). With no accepted version, the file's hooks are
missing: every decide of its scope names the file in ``not_run`` with reason
``invalid_file``.

Two files of a scope that define one hook name: which one keeps it is
hookd/config/hooknames.py's rule (in force, then last accepted, then load order), the
same `hookd check` applies, so a restart leaves the same guards in force.

A project that is disposed drops every load of it asked for before the dispose,
including those whose task has not started yet: nothing loaded for it before
the dispose comes back after it.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import structlog
from hookd_client import messages as m
from hookd_client.messages import HookRef

from hookd.config import hookfile, hooknames, userconfig
from hookd.config.accepted import AcceptedStore
from hookd.core import changes
from hookd.core.registry import NotRunEntry
from hookd.daemon.handlers.common import MakesHooks, Publishes, RunsInBackground

if TYPE_CHECKING:
    from hookd.config.watcher import FileWatcher
    from hookd.core.registry import Registry
    from hookd.core.settings import Settings
    from hookd.plugins.manager import PluginManager

log = structlog.get_logger("hookd.daemon")

_INVALID = "reason invalid_file"
LOAD_WAIT = 10.0  # seconds at most a call waits for its project's first load (and never over the hook timeout)
Problems = list[userconfig.Problem]


@dataclass(frozen=True, slots=True)
class InForce:
    """Which version of a file the hooks in force come from."""

    sha256: str
    kept: str = ""  # where the accepted version loaded at start is kept ("": the file as read)
    accepted_at: str = ""

    def describe(self) -> str:
        if self.kept:
            return f"in force: the version accepted {self.accepted_at} (sha256 {self.sha256[:12]}), kept in {self.kept}"
        return f"in force: the version loaded before (sha256 {self.sha256[:12]})"


class FilesParts(Publishes, RunsInBackground, MakesHooks, Protocol):
    """What loading hook files uses: the registry the hooks go into, the watcher, the plugins of a project."""

    settings: Settings
    registry: Registry
    watcher: FileWatcher
    plugins: PluginManager

    def trust_key(self, path: str) -> str:
        """The name trust records ``path`` under."""


class HookFiles:
    def __init__(self, daemon: FilesParts) -> None:
        self.d = daemon
        self.rejected: dict[str, Problems] = {}  # file -> why its latest version was refused
        self.in_force: dict[str, InForce] = {}  # file -> the version its hooks come from
        self.accepted = AcceptedStore()
        self.loading: dict[str, asyncio.Task[Problems]] = {}  # project -> its first load, until done
        self._epochs: dict[str, int] = {}  # project -> disposals: a load that spans one drops its result
        self._disposing: set[str] = set()  # projects disposed in this turn of the event loop (see _epoch)
        self._locks: dict[tuple[m.Scope, str], asyncio.Lock] = {}
        self._last_read: dict[str, hookfile.Read] = {}  # rejected files, to retry without reading again
        self._kept_refused: dict[str, str] = {}  # rejected files whose accepted version another file's names keep out

    # ------------------------------------------------------------- applying

    def apply(self, scope: m.Scope, owner: str, read: hookfile.Read) -> Problems:
        """Swap in the hooks of one file as read; an invalid file leaves its previous hooks in force.

        The swap is one registry step: a call sees the old hooks of the file or the new ones.
        """
        d = self.d
        path = read.path
        d.watcher.loaded(path, read.sig, read.sha if read.error is None else None)
        specs: list[m.HookSpec] = []
        problems: Problems = []
        if read.error is not None:
            problems = [userconfig.Problem(path, read.error)]
        elif read.data is not None:
            specs, problems = self._validate(read.data, path)
            problems = problems or self._duplicates(scope, owner, path, specs, self.accepted.claimed(path))
        if problems:
            return self._rejected(scope, owner, read, problems)
        fixed = self.rejected.pop(path, None) is not None
        self._last_read.pop(path, None)
        d.registry.set_missing(scope, owner, path, None)
        sha = read.sha or ""
        if read.data is None:
            self.in_force.pop(path, None)
            self.accepted.forget(path)  # deleted on purpose: no earlier version may come back
        else:
            self.in_force[path] = InForce(sha)
            self.accepted.keep(path, read.data, [spec.name for spec in specs])
        self._kept_refused.pop(path, None)
        self._install(scope, owner, path, specs, sha, fixed)
        return []

    def _validate(self, data: bytes, path: str) -> tuple[list[m.HookSpec], Problems]:
        try:
            return userconfig.validate(data.decode("utf-8"), path), []
        except UnicodeDecodeError as exc:
            return [], [userconfig.Problem(path, f"not UTF-8 text: {exc}")]
        except userconfig.ConfigInvalid as exc:
            return [], exc.problems

    def _install(self, scope: m.Scope, owner: str, path: str, specs: list[m.HookSpec], sha: str, fixed: bool = False) -> None:
        """Put a file's hooks in force; ``fixed``: its previous version had been rejected, so the
        stream hears that it is accepted again even when its hooks are those already in force."""
        d = self.d
        key = d.trust_key(path) if scope == "project" else ""
        hooks = [d.command_hook(spec, scope, owner, path, key, sha) for spec in specs]
        # Among hooks of one priority, files run in load order (hooks.yaml, then hooks.d/ by name),
        # also for a drop-in that appears while the daemon runs.
        d.registry.order_files([p for p in self._siblings(scope, owner) if p == path or os.path.lexists(p)])
        removed, added = d.registry.replace_source(scope, owner, path, hooks)
        d.hooks_removed(removed, reloaded=added)
        summary = changes.diff(removed, added, lambda h: not d.registry.verdict(h).trusted)
        if summary or fixed:
            d.publish_internal(
                "hookd.config.reloaded",
                {
                    "file": path,
                    "scope": scope,
                    "project": owner or None,
                    "trusted": not summary.untrusted,
                    "hooks": len(added),
                    **summary.as_dict(),
                    **({"fixed": True} if fixed else {}),
                },
            )
            # A sibling refused for a name clash may load now that this file's names changed.
            for sibling in self._siblings(scope, owner):
                last = self._last_read.get(sibling)
                if sibling != path and last is not None and hooknames.only_clashes(self.rejected.get(sibling, [])):
                    self.apply(scope, owner, last)

    def _rejected(self, scope: m.Scope, owner: str, read: hookfile.Read, problems: Problems) -> Problems:
        d = self.d
        path = read.path
        self.rejected[path] = problems
        self._last_read[path] = read
        if not any(h.source == path for h in d.registry.layer(scope, owner)) and path not in self.in_force:
            # Nothing of this file is in force (the daemon just started, or the project was just
            # seen): the version last accepted stands in for it, as a previous version would.
            kept = self.accepted.kept(path)
            if kept is not None:
                specs, bad = self._validate(kept.text.encode("utf-8"), path)
                refused = [] if bad else self._duplicates(scope, owner, path, specs, frozenset(s.name for s in specs))
                if not bad and not refused:
                    self.in_force[path] = InForce(kept.sha256, kept.stored, kept.accepted_at)
                    self._install(scope, owner, path, specs, kept.sha256)
                elif refused:
                    # Another file keeps one of its names: that version can never stand in, and must not
                    # claim the name at the next start either.
                    self._kept_refused[path] = hooknames.kept_refused(refused)
                    self.accepted.forget(path)
            if path not in self.in_force:
                why = self._kept_refused.get(path, "no earlier version of it was accepted")
                message = f"{path} was rejected and {why}: its hooks are missing ({problems[0]})"
                d.registry.set_missing(scope, owner, path, ("invalid_file", message))
        in_force = self.in_force.get(path)
        d.publish_internal(
            "hookd.config.rejected",
            {
                "file": path,
                "scope": scope,
                "project": owner or None,
                "problems": [str(p) for p in problems],
                "in_force": in_force.describe() if in_force is not None else "nothing: the file's hooks are missing",
            },
        )
        return problems

    def _siblings(self, scope: m.Scope, owner: str) -> list[str]:
        return userconfig.global_files() if scope == "global" else self._project_files(owner)

    def _duplicates(self, scope: m.Scope, owner: str, path: str, specs: list[m.HookSpec], claimed: frozenset[str]) -> Problems:
        """Hook names are unique in a scope: the names of ``specs`` another file of the scope keeps
        (hookd/config/hooknames.py: in force, then last accepted, then load order); ``claimed``: the names
        of this file's own last accepted version."""
        siblings = self._siblings(scope, owner)
        wanted = set(siblings)
        in_force: dict[str, set[str]] = {}
        for hook in self.d.registry.layer(scope, owner):
            if hook.source != path and hook.source in wanted:
                in_force.setdefault(hook.source, set()).add(hook.name)
        # A file deleted while the daemon was down claims nothing: only the files there now (or in force) count.
        holders = [
            hooknames.Holder(p, frozenset(in_force.get(p, ())), self.accepted.claimed(p))
            for p in siblings
            if p != path and (p in in_force or os.path.lexists(p))
        ]
        return hooknames.clashes(path, [s.name for s in specs], claimed, holders, siblings)

    def problems_of(self, path: str) -> list[str]:
        """What `hookd hooks` says of a rejected file: its problems, then which version is in force."""
        in_force = self.in_force.get(path)
        refused = self._kept_refused.get(path)
        if in_force is not None:
            state = in_force.describe()
        elif refused is not None:
            state = f"in force: nothing, {refused}; its hooks are missing (every decide of its scope names it in not_run, {_INVALID})"
        else:
            state = (
                "in force: nothing, no version of this file was ever accepted; its hooks are missing "
                "(every decide of its scope names it in not_run, reason invalid_file)"
            )
        return [*(str(p) for p in self.rejected.get(path, ())), state]

    # -------------------------------------------------------------- loading

    def _lock(self, scope: m.Scope, owner: str) -> asyncio.Lock:
        lock = self._locks.get((scope, owner))
        if lock is None:
            lock = self._locks[(scope, owner)] = asyncio.Lock()
        return lock

    async def _load(self, scope: m.Scope, owner: str, paths: list[str], epoch: int = 0) -> Problems:
        """Read ``paths`` in a thread, then swap them in. ``epoch``: the project's disposals when the load
        was asked for (taken then, not when this task starts); a project disposed since drops what was read."""
        async with self._lock(scope, owner):
            if scope == "project" and self._epochs.get(owner, 0) != epoch:
                return []
            reads = await asyncio.to_thread(lambda: [hookfile.read(p) for p in paths])
            if scope == "project" and self._epochs.get(owner, 0) != epoch:
                return []
            problems: Problems = []
            for read in reads:
                problems += self.apply(scope, owner, read)
            return problems

    def load_global_now(self) -> Problems:
        """At start, before any client is served: the global files, read here (bounded, never blocking)."""
        problems: Problems = []
        for directory in userconfig.global_dropin_dirs():  # hooks.d/: files that appear there later load too
            self.d.watcher.watch_dir(directory, ("global", ""), userconfig.dropins)
        for path in userconfig.global_files():
            problems += self.apply("global", "", hookfile.read(path))
        self.d.plugins.load("global", "")
        return problems

    async def load_global(self) -> Problems:
        problems = await self._load("global", "", userconfig.global_files(), 0)
        self.d.plugins.load("global", "")
        return problems

    def _project_files(self, project: str) -> list[str]:
        own = {os.path.realpath(p) for p in userconfig.global_files()}
        # The home directory as a project: ~/.codingcode/hooks.yaml is the global file.
        return [p for p in userconfig.project_files(project) if os.path.realpath(p) not in own]

    def _epoch(self, project: str) -> int | None:
        """The project's disposals now, for a load asked for now; None: the load predates a dispose.

        A request that came before a dispose but whose task starts after it (in the same turn of the
        event loop: tasks start in the order they were made) is such a load: it must not bring the
        disposed project back."""
        return None if project in self._disposing else self._epochs.get(project, 0)

    def ensure_project(self, project: str) -> asyncio.Task[Problems] | None:
        """Start loading ``project`` unless it is loaded; the load in progress, or None when there is
        nothing to wait for (it is loaded, or the call came before a dispose of it)."""
        if self.d.registry.is_loaded(project):
            return None
        task = self.loading.get(project)
        if task is None:
            epoch = self._epoch(project)
            if epoch is None:
                return None
            task = self.loading[project] = self.d.background(self.load_project(project, epoch), f"loading project {project}")
            task.add_done_callback(lambda t: self.loading.pop(project, None) if self.loading.get(project) is t else None)
        return task

    async def load_project(self, project: str, epoch: int | None = None) -> Problems:
        """Read (again) a project's files and start (re)loading its plugins. ``epoch``: see :meth:`_load`
        (None: taken now); a load asked for before a dispose of the project does nothing."""
        d = self.d
        if epoch is None:
            epoch = self._epoch(project)
        if epoch is None or self._epochs.get(project, 0) != epoch:
            return []
        paths = self._project_files(project)
        for path in paths:
            d.watcher.watch(path, ("project", project))
        for directory in userconfig.project_dropin_dirs(project):
            d.watcher.watch_dir(directory, ("project", project), userconfig.dropins)
        problems = await self._load("project", project, paths, epoch)
        if self._epochs.get(project, 0) == epoch:
            d.registry.mark_project_loaded(project)
            d.plugins.load("project", project)
        return problems

    def dispose_project(self, project: str) -> None:
        """The project is disposed: every load of it asked for before now drops what it read, and its
        plugins are forgotten now (loads under way cancelled, hooks dropped, hosts stopped once unleased),
        so that nothing of it comes back and a request that names it again loads it afresh."""
        self._epochs[project] = self._epochs.get(project, 0) + 1
        self._disposing.add(project)
        try:
            asyncio.get_running_loop().call_soon(self._disposing.discard, project)
        except RuntimeError:  # not serving (a unit test): no task can be waiting to start
            self._disposing.discard(project)
        self.loading.pop(project, None)
        self.d.watcher.forget(userconfig.project_files(project))
        self.d.watcher.forget_dirs(userconfig.project_dropin_dirs(project))
        for path in userconfig.project_files(project):
            self.rejected.pop(path, None)
            self.in_force.pop(path, None)
            self._last_read.pop(path, None)
            self._kept_refused.pop(path, None)
        gone = self.d.plugins.forget("project", project)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            gone.close()  # not serving: no host was started
            return
        self.d.background(gone, f"retiring the plugin hosts of {project}")

    async def reload_all(self) -> Problems:
        """SIGHUP: every global file and every loaded project's files, read again."""
        problems = await self.load_global() if self.d.settings.load_user_config else []
        for project in sorted(self.d.registry.loaded_projects):
            if self.d.registry.is_loaded(project):  # not disposed while an earlier one reloaded
                problems += await self.load_project(project)
        return problems

    def file_changed(self, path: str, tag: tuple[m.Scope, str]) -> None:
        """The watcher saw an edit: reload that file, off the loop."""
        scope, owner = tag
        if scope == "project" and not self.d.registry.is_loaded(owner):
            return
        self.d.background(self._load(scope, owner, [path], self._epochs.get(owner, 0)), f"reloading {path}")

    def reload_files(self, files: list[str]) -> None:
        """Files whose trust changed: read them again (their content may have moved on since they were loaded)."""
        for path in files:
            scope, owner = userconfig.scope_of(path)
            # Trust also covers plugin files; those are the plugin manager's to reload.
            if scope == "project" and self.d.registry.is_loaded(owner) and path in userconfig.project_files(owner):
                self.d.background(self._load("project", owner, [path], self._epochs.get(owner, 0)), f"reloading {path}")

    # ------------------------------------------------- waiting for loads

    def settled(self, project: str | None) -> bool:
        """True when a call on ``project`` has nothing to wait for: its files loaded, no first plugin load running."""
        if project is not None and not self.d.registry.is_loaded(project):
            return False
        plugins = self.d.plugins
        return not (plugins.first_loads and plugins.first_loads_for(project))

    async def settle(self, project: str | None) -> tuple[NotRunEntry, ...]:
        """Wait (bounded) for ``project``'s first load and the first plugin loads of the call's scopes.

        Returns what a decide must name as not run when the project's files did not load in time.
        """
        d = self.d
        missing: tuple[NotRunEntry, ...] = ()
        if project is not None and not d.registry.is_loaded(project):
            task = self.ensure_project(project)
            wait = min(LOAD_WAIT, d.settings.hook_timeout)
            if task is not None:
                await asyncio.wait([task], timeout=wait)
            if not d.registry.is_loaded(project):
                message = f"the project's hook files were not loaded within {wait:g} s"
                missing = tuple(
                    (HookRef("*", "project", path), "not_loaded", f"{path}: {message}")
                    for path in self._project_files(project)
                    if os.path.lexists(path)
                )
        plugins = d.plugins
        if plugins.first_loads and (loading := plugins.first_loads_for(project)):
            await plugins.wait_first_loads(loading)
        return missing

    # ----------------------------------------------------------- reporting
