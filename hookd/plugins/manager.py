"""Plugin directories in the daemon: find them, run one host per directory,
register its hooks, reload it when a file changes.

For each scope (global: the user's config dir; project: ``<project>/.hookd``)
the manager loads the ``plugin/`` and ``plugins/`` directories, each on its own
(loading.py): a directory's host is started from a verified private copy of
its files (snapshot.py), with the directory's own virtualenv python when it has
a requirements.txt. Once the host answered its describe request, the manager
registers one hook per event the directory handles, in the directory's scope,
so the registry's order applies: scope, then directory, then (inside the host)
file name and export order.

A changed file (polled: a few stats per directory) reloads that directory: a
new host is started and loaded while the old one keeps serving; the hooks are
swapped in one registry step, and the old host is stopped once the calls that
leased it are over (hosthandle.py). Project directories load only when trusted.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import msgspec
import structlog
from hookd_client.messages import PluginInfo, Scope

from hookd.config import plugin_dirs as discovery
from hookd.config.plugin_trust import judging
from hookd.core import intake
from hookd.core.hooks import Verdict
from hookd.core.registry import Registry
from hookd.plugins import snapshot
from hookd.plugins.hosthandle import HostHandle, PluginDecision
from hookd.plugins.loading import Loader
from hookd.plugins.state import DirState, ScopeState
from hookd.runners.command import ProcessGroups
from hookd.runners.workers import WorkerLimits

__all__ = ["FIRST_LOAD_WAIT", "HostHandle", "PluginDecision", "PluginManager"]

log = structlog.get_logger("hookd.plugins")

POLL_INTERVAL = 0.5
FIRST_LOAD_WAIT = 10.0
CONFIG_ENV_MAX = 96 * 1024  # one environment string may hold 128 KiB on Linux
ANSWER_CAP = 8 << 20  # one answer line: a whole tool output may come back rewritten

Publish = Callable[[str, dict[str, Any], str | None], None]
TrustGate = Callable[[str], Verdict]  # a project plugin directory -> may it run (plugins/trust.py)


class PluginManager:
    def __init__(
        self,
        registry: Registry,
        publish: Publish,
        socket: str,
        hook_timeout: float,
        groups: ProcessGroups,
        trusted: TrustGate,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.registry = registry
        self.publish = publish
        self.socket = socket
        self.hook_timeout = hook_timeout
        self.load_timeout = max(30.0, hook_timeout)
        self.groups = groups
        # EOF, then this long for the host to answer what it holds before its group is killed.
        self.limits = WorkerLimits(line_cap=ANSWER_CAP, stop_grace=hook_timeout)
        self.trusted = trusted
        self.trust_generation = 0  # bumped by trust_changed(): project directories are checked again
        self.environ = dict(os.environ if environ is None else environ)
        self.scopes: dict[tuple[Scope, str], ScopeState] = {}
        self._poller: asyncio.Task[None] | None = None
        self._closed = False
        self._swept = False
        # A scope's first load, until done: decide waits for it (bounded) instead of running without its plugins.
        self.first_loads: dict[tuple[Scope, str], asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self.loader = Loader(self)

    def spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]:
        """Run ``work`` in the background, keeping a reference until it is done; what it raises is logged."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("plugin task failed", error=f"{type(exc).__name__}: {exc}", exc_info=exc)

    # --------------------------------------------------------------- public

    def dirs(self, scope: Scope, owner: str) -> list[str]:
        return discovery.project_dirs(owner) if scope == "project" else discovery.global_dirs(self.environ)

    def load(self, scope: Scope, owner: str) -> asyncio.Task[None] | None:
        """(Re)load a scope's plugins in the background; returns the task (None outside an event loop).

        A scope's first load (daemon start, a project first seen) does not retry an
        install that failed before with the same requirements.txt; a later call (an
        explicit reload: ``reload_user_hooks``, SIGHUP) does, and reloads every
        directory whose last load failed.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        if self._closed:
            return None
        if not self._swept:
            self._swept = True
            snapshot.sweep(self.environ)
        key = (scope, owner)
        state = self.scopes.get(key)
        first = state is None
        if state is None:
            state = self.scopes[key] = ScopeState(scope, owner, trust_seen=self.trust_generation)
        if self._poller is None or self._poller.done():
            self._poller = loop.create_task(self._poll())
        task = loop.create_task(self._load_scope(state, first))
        state.task = task
        if first:
            state.first = task
            self.first_loads[key] = task
            task.add_done_callback(lambda _t: self.first_loads.pop(key, None))
        return task

    def info(self) -> list[PluginInfo]:
        """Every plugin directory of every scope loaded so far, with its state, for ``status``."""
        out = []
        for state in self.scopes.values():
            for ds in state.dirs.values():
                out.append(_info(state, ds))
        return out

    def trust_changed(self) -> None:
        """Trust was granted or revoked: the poller checks every project plugin directory again."""
        self.trust_generation += 1

    def first_loads_for(self, project: str | None) -> list[asyncio.Task[None]]:
        tasks = [self.first_loads.get(("global", ""))]
        if project is not None:
            tasks.append(self.first_loads.get(("project", project)))
        return [t for t in tasks if t is not None]

    async def wait_first_loads(self, tasks: list[asyncio.Task[None]]) -> None:
        """Wait for first loads, at most FIRST_LOAD_WAIT (a long pip install goes on in the background;
        meanwhile the calls name that directory's guards as not loaded)."""
        await asyncio.wait(tasks, timeout=min(FIRST_LOAD_WAIT, self.hook_timeout))

    def forget(self, scope: Scope, owner: str) -> Coroutine[Any, Any, None]:
        """Drop a scope at once: loads under way are cancelled, its hooks leave the registry now,
        its hosts are retired (stopped once unleased). The returned awaitable ends when they are gone."""
        state = self.scopes.pop((scope, owner), None)
        if state is None:
            return _nothing()
        state.closed = True
        loads = [d.task for d in state.dirs.values() if d.loading]
        hosts = []
        for d in state.dirs.values():
            if d.task is not None:
                d.task.cancel()
            if d.host is not None:
                hosts.append(d.host)
            d.host = d.pending = None
            if any(h.source == d.directory for h in self.registry.layer(scope, owner)):
                self.registry.replace_source(scope, owner, d.directory, [])
        return self._gone(loads, hosts)

    async def _gone(self, loads: list[asyncio.Task[None] | None], hosts: list[HostHandle]) -> None:
        if loads:
            await asyncio.wait([t for t in loads if t is not None])
        stops = [t for t in (h.retire() for h in hosts) if t is not None]
        if stops:
            await asyncio.wait(stops)

    def begin_shutdown(self) -> None:
        """Stop reloading, cancel loads, and let every host go once its leased calls are answered.

        The daemon's drain waits for every task, the hosts' pipe readers included,
        so the hosts must end on their own for a stop to be quick.
        """
        self._closed = True
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
        for state in self.scopes.values():
            state.closed = True
            for d in state.dirs.values():
                if d.task is not None:
                    d.task.cancel()
                if d.host is not None:
                    d.host.retire()

    def effective_config(self, host: HostHandle) -> dict[str, Any]:
        """What a plugin's ``config`` handler receives: its scope's configuration as the daemon holds it."""
        hooks = [msgspec.to_builtins(h.spec) for h in self.registry.layer(host.scope, host.owner) if h.spec is not None]
        return {
            "scope": host.scope,
            "project": host.project,
            "directory": intake.safe_text(host.directory),
            "hooks": hooks,
            "settings": {"hookTimeout": self.hook_timeout, "socket": self.socket},
        }

    def config_json(self, host: HostHandle) -> str:
        """The effective configuration for the host's environment; the hook list is left out if it is too big for one."""
        config = self.effective_config(host)
        text = json.dumps(config)
        if len(text) > CONFIG_ENV_MAX:
            config["hooks"], config["hooksOmitted"] = [], len(config["hooks"])
            text = json.dumps(config)
        return text

    # -------------------------------------------------------------- reporting

    def publish_fit(self, point: str, payload: dict[str, Any], project: str | None) -> None:
        """Publish a plugin happening; text from outside (file names, plugin messages) made fit for the wire first."""
        try:
            intake.check(payload, point)
        except intake.Unfit:
            payload = _fit(payload)
        self.publish(point, payload, project)

    def report(self, host: HostHandle, kind: str, point: str, handler: str, message: str) -> None:
        directory = intake.safe_text(host.directory)
        log.error(
            "plugin error", kind=kind, directory=directory, scope=host.scope, point=point or None, handler=handler or None, error=message
        )
        payload = {"kind": kind, "directory": directory, "scope": host.scope, "point": point, "handler": handler, "message": message}
        self.publish_fit("hookd.plugin.error", payload, host.project)

    def problem(self, state: ScopeState, directory: str, kind: str, message: str) -> None:
        directory = intake.safe_text(directory)
        message = intake.safe_text(message)
        log.error("plugin directory not loaded", kind=kind, directory=directory, scope=state.scope, error=message)
        payload = {"kind": kind, "directory": directory, "scope": state.scope, "point": "", "handler": "", "message": message}
        self.publish_fit("hookd.plugin.error", payload, state.project)

    # -------------------------------------------------------------- loading

    async def _load_scope(self, state: ScopeState, first: bool) -> None:
        """Load every directory of the scope that needs it, each on its own task; done when all are."""
        loader = self.loader
        if not first and state.first is not None and not state.first.done():
            await asyncio.shield(state.first)  # a reload asked for during the first load is that load
            return
        recheck = self.trust_generation != state.trust_seen
        state.trust_seen = self.trust_generation
        snaps: dict[str, Any] = {}
        if first:
            # Read every directory first, so that the placeholders of a scope's directories are
            # registered in directory order (that order then holds across their reloads).
            for directory in self.dirs(state.scope, state.owner):
                state.dirs[directory] = DirState(directory)
            self.registry.reserve_ranks(state.dirs)
            reads = await asyncio.gather(*(loader.read(d) for d in state.dirs.values()))
            if state.closed:
                return
            state.ready = True
            for d, snap in zip(state.dirs.values(), reads, strict=True):
                if loader.judge(state, d, snap):
                    loader.hold(state, d)
                    snaps[d.directory] = snap
        waits: list[asyncio.Task[None]] = []
        for d in state.dirs.values():
            if d.loading and d.task is not None:
                waits.append(d.task)  # a load of it is under way; the poller sees later changes
            elif first and d.directory not in snaps:
                continue
            elif first or self._changed(state, d, recheck) or (not first and d.failed):
                d.task = task = self.spawn(loader.load(state, d, retry=not first, snap=snaps.get(d.directory)))
                waits.append(task)
        if waits:
            await asyncio.wait(waits)

    def _changed(self, state: ScopeState, d: DirState, recheck_trust: bool) -> bool:
        if discovery.fingerprint(d.directory) != d.fingerprint:
            return True
        if state.scope == "project" and recheck_trust and discovery.has_code(d.fingerprint):
            with judging(d.digests):
                return self.trusted(d.directory).trusted != d.trusted
        return False  # a failed host also waits here for an edit

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_INTERVAL)
            for state in list(self.scopes.values()):
                if state.closed or not state.ready:
                    continue
                generation = self.trust_generation
                recheck = generation != state.trust_seen and state.scope == "project"
                busy = False
                for d in state.dirs.values():
                    if d.loading:
                        busy = True  # judged again once its load is over, against the trust of then
                    elif self._changed(state, d, recheck):
                        d.task = self.spawn(self.loader.load(state, d, retry=False))
                if not busy:
                    state.trust_seen = generation


async def _nothing() -> None:
    return None


def _fit(value: Any) -> Any:
    if isinstance(value, str):
        return intake.safe_text(value)
    if isinstance(value, dict):
        return {_fit(k): _fit(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_fit(v) for v in value]
    return value


def _info(state: ScopeState, ds: DirState) -> PluginInfo:
    host = ds.host
    worker = host.worker if host is not None else None
    if ds.stage:
        kind = ds.stage
    elif host is not None:
        kind = "loaded"
    elif not ds.trusted and state.scope == "project" and ds.digests:
        kind = "untrusted"
    elif ds.failed:
        kind = "failed"
    elif ds.loading:
        kind = "loading"
    else:
        kind = "empty"
    return PluginInfo(
        intake.safe_text(ds.directory),
        state.scope,
        kind,  # type: ignore[arg-type]
        intake.safe_text(state.owner),
        worker.pid if worker is not None and worker.pid else 0,
        sorted(ds.events),
        ds.progress if ds.stage == "installing" else "",
        _last_line(ds.failed),
    )


def _last_line(text: str) -> str:
    """What failed and pip's last words (the line that says what went wrong), not its whole log."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0][:500] if lines else ""
    return f"{lines[0][:200]} ... {lines[-1][:300]}"
