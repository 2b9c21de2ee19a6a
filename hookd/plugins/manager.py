"""Plugin directories in the daemon: find them, run one host per directory,
register its hooks, reload it when a file changes.

For each scope (global: the user's config dir; project: ``<project>/.hookd``)
the manager loads the ``plugin/`` and ``plugins/`` directories in that order.
Each directory gets a host process (host.py) started with the directory's own
virtualenv python when it has a requirements.txt. Once the host answered its
describe request, the manager registers one hook per event the directory
handles, in the directory's scope, so the registry's order applies: scope,
then directory, then (inside the host) file name and export order.

A changed file (polled: a few stats per directory) reloads the whole scope:
a new host is started and loaded while the old one keeps serving; the hooks
are swapped in one registry step, then the old host is stopped once its
in-flight calls are answered. Project directories load only when trusted.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
from hookd_client.messages import Decision, HookError, HookRef, Scope

from .. import points
from ..registry import CallContext, Hook, Registry
from ..runners.command import HookFailure, ProcessGroups
from ..trust import Verdict
from ..workers import Worker, WorkerLimits
from . import discovery, venv
from .host import CONFIG_ENV, DESCRIBE

log = structlog.get_logger("hookd.plugins")

POLL_INTERVAL = 0.5
FIRST_LOAD_WAIT = 10.0
CONFIG_ENV_MAX = 96 * 1024  # one environment string may hold 128 KiB on Linux
HOST_CONCURRENCY = 64  # requests in flight per host: async handlers interleave, sync ones queue in the host
ANSWER_CAP = 8 << 20  # one answer line: a whole tool output may come back rewritten

Publish = Callable[[str, dict[str, Any], str | None], None]
TrustGate = Callable[[str], Verdict]  # a project plugin directory -> may it run (plugins/trust.py)


class PluginDecision(Decision):
    """A host's decision plus the errors of handlers that failed without stopping the chain (not on the wire)."""

    handler_errors: list[HookError] = []


@dataclass(slots=True)
class HostHandle:
    """One plugin directory's host: a worker of the shared worker manager (hookd/workers.py), and what it handles.

    The worker starts the host, restarts it with backoff when it dies, kills it
    when a call is abandoned (our timeout), and marks it failed after repeated
    failures; a changed file makes a new HostHandle, so a failed host waits for an edit.
    """

    directory: str
    scope: Scope
    owner: str
    python: str | None
    manager: PluginManager
    handlers: dict[str, list[str]] = field(default_factory=dict)
    worker: Worker | None = None

    @property
    def project(self) -> str | None:
        return self.owner if self.scope == "project" else None

    def _argv_env(self) -> tuple[list[str], dict[str, str]]:
        env = dict(self.manager.environ)
        env["HOOKD_PLUGIN_SCOPE"] = self.scope
        env["HOOKD_PROJECT_DIR"] = self.owner if self.scope == "project" else ""
        env["HOOKD_SOCKET"] = self.manager.socket
        env["PYTHONUNBUFFERED"] = "1"
        env[CONFIG_ENV] = self.manager.config_json(self)
        python = self.python or sys.executable
        if self.python is not None:
            lib = venv.host_lib(self.manager.environ)
            env["PYTHONPATH"] = lib + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        return [python, "-m", "hookd.plugins.host", self.directory], env

    def _failed(self, worker: Worker) -> None:
        self.manager.report(self, "host", "", "", f"the plugin host was marked failed: {worker.error}; save a plugin file to retry")

    async def start(self) -> dict[str, Any]:
        """Start the host (it loads its plugins) and ask what it handles. Raises HookFailure."""
        argv, env = self._argv_env()
        cwd = self.owner if self.scope == "project" else os.path.expanduser("~")
        where = "" if self.scope == "global" else f":{os.path.basename(self.owner)}"
        worker = Worker(
            f"plugins {self.directory} ({self.scope}{where})",
            argv,
            env=env,
            cwd=cwd if os.path.isdir(cwd) else "/",
            concurrency=HOST_CONCURRENCY,
            limits=self.manager.limits,
            groups=self.manager.groups,
            on_failed=self._failed,
        )
        try:
            answer = await worker.request({"point": DESCRIBE, "payload": {}}, timeout=self.manager.load_timeout)
            handlers = answer.get("handlers")
            errors = answer.get("errors") or []
            if "error" in answer:
                raise HookFailure("error", str(answer["error"]))
            if not isinstance(handlers, dict) or not all(isinstance(v, list) for v in handlers.values()) or not isinstance(errors, list):
                raise HookFailure("error", f"answered the describe request with something else: {str(answer)[:200]}")
        except BaseException:
            await worker.stop()
            raise
        self.worker = worker
        self.handlers = {str(k): [str(x) for x in v] for k, v in handlers.items()}
        for err in errors:
            if isinstance(err, dict):
                point = str(err.get("point", ""))  # "config" for a config handler's error; "" for an import error
                self.manager.report(self, "load", point, str(err.get("handler", "?")), str(err.get("message", "")))
        return answer

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        """The Runner of every hook this directory registered. The engine's timeout cancels the request,
        and the worker manager then kills the host (a handler that never returns may hold its only thread)."""
        worker = self.worker
        assert worker is not None, "hooks are registered only once the host answered"
        request = {
            "point": ctx.point,
            "session": ctx.session,
            "project": ctx.project,
            "hook": hook.name,
            "event": hook.point,
            "payload": payload,
        }
        answer = await worker.request(request)
        if "error" in answer:
            raise HookFailure("error", str(answer["error"]))
        errors = [
            HookError(HookRef(f"{hook.name}/{e.get('handler', '?')}", hook.scope, self.directory), "error", str(e.get("message", "")))
            for e in answer.get("errors") or []
            if isinstance(e, dict)
        ]
        for err in errors:
            self.manager.report(self, "handler", ctx.point, err.hook.name, err.message)
        raw = answer.get("decision")
        if hook.type == "observer" or (raw is None and not errors):
            return None
        try:
            decision = msgspec.convert(raw or {}, PluginDecision)
        except msgspec.ValidationError as exc:
            raise HookFailure("error", f"the plugin host answered a bad decision: {exc}") from None
        decision.handler_errors = errors
        return decision

    async def retire(self) -> None:
        """Stop the host: EOF on its stdin, so it answers what it holds and exits; killed after the grace."""
        if self.worker is not None:
            await self.worker.stop()


@dataclass(slots=True)
class DirState:
    fingerprint: discovery.Fingerprint
    trusted: bool
    host: HostHandle | None
    requirements: str | None


@dataclass(slots=True)
class ScopeState:
    scope: Scope
    owner: str
    dirs: dict[str, DirState] = field(default_factory=dict)
    trust_seen: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None
    warned_untrusted: set[str] = field(default_factory=set)


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
        # A scope's first load, until done: decide waits for it (bounded) instead of running without its plugins.
        self.first_loads: dict[tuple[Scope, str], asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Any) -> asyncio.Task[Any]:
        """Run ``work`` in the background, keeping a reference until it is done."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    # --------------------------------------------------------------- public

    def dirs(self, scope: Scope, owner: str) -> list[str]:
        return discovery.project_dirs(owner) if scope == "project" else discovery.global_dirs(self.environ)

    def load(self, scope: Scope, owner: str) -> asyncio.Task[None] | None:
        """(Re)load a scope's plugins in the background; returns the task (None outside an event loop)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        if self._closed:
            return None
        key = (scope, owner)
        state = self.scopes.get(key)
        first = state is None
        if state is None:
            state = self.scopes[key] = ScopeState(scope, owner)
        if self._poller is None or self._poller.done():
            self._poller = loop.create_task(self._poll())
        task = loop.create_task(self._load_scope(state))
        state.task = task
        if first:
            self.first_loads[key] = task
            task.add_done_callback(lambda _t: self.first_loads.pop(key, None))
        return task

    def trust_changed(self) -> None:
        """Trust was granted or revoked: the poller checks every project plugin directory again."""
        self.trust_generation += 1

    def first_loads_for(self, project: str | None) -> list[asyncio.Task[None]]:
        tasks = [self.first_loads.get(("global", ""))]
        if project is not None:
            tasks.append(self.first_loads.get(("project", project)))
        return [t for t in tasks if t is not None]

    async def wait_first_loads(self, tasks: list[asyncio.Task[None]]) -> None:
        """Wait for first loads, at most FIRST_LOAD_WAIT (a long pip install goes on in the background)."""
        await asyncio.wait(tasks, timeout=min(FIRST_LOAD_WAIT, self.hook_timeout))

    async def forget(self, scope: Scope, owner: str) -> None:
        state = self.scopes.pop((scope, owner), None)
        if state is None:
            return
        for d in state.dirs.values():
            if d.host is not None:
                await d.host.retire()

    def begin_shutdown(self) -> None:
        """Stop reloading, and let every host go once its in-flight calls are answered.

        The daemon's drain waits for every task, the hosts' pipe readers included,
        so the hosts must end on their own for a stop to be quick.
        """
        self._closed = True
        if self._poller is not None:
            self._poller.cancel()
            self._poller = None
        for state in self.scopes.values():
            for d in state.dirs.values():
                if d.host is not None:
                    self.spawn(d.host.retire())

    def effective_config(self, host: HostHandle) -> dict[str, Any]:
        """What a plugin's ``config`` handler receives: its scope's configuration as the daemon holds it."""
        hooks = [msgspec.to_builtins(h.spec) for h in self.registry.layer(host.scope, host.owner) if h.spec is not None]
        return {
            "scope": host.scope,
            "project": host.project,
            "directory": host.directory,
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

    def report(self, host: HostHandle, kind: str, point: str, handler: str, message: str) -> None:
        log.error(
            "plugin error",
            kind=kind,
            directory=host.directory,
            scope=host.scope,
            point=point or None,
            handler=handler or None,
            error=message,
        )
        self.publish(
            "hookd.plugin.error",
            {"kind": kind, "directory": host.directory, "scope": host.scope, "point": point, "handler": handler, "message": message},
            host.project,
        )

    # -------------------------------------------------------------- loading

    def _problem(self, scope: Scope, owner: str, directory: str, kind: str, message: str) -> None:
        log.error("plugin directory not loaded", kind=kind, directory=directory, scope=scope, error=message)
        project = owner if scope == "project" else None
        self.publish(
            "hookd.plugin.error",
            {"kind": kind, "directory": directory, "scope": scope, "point": "", "handler": "", "message": message},
            project,
        )

    async def _load_dir(self, state: ScopeState, directory: str, old: DirState | None) -> DirState:
        fp = discovery.fingerprint(directory)
        present = any(name.endswith(".py") for name, _, _ in fp)
        verdict = Verdict(True, "the user's own plugins") if state.scope == "global" or not present else self.trusted(directory)
        trusted = verdict.trusted
        req = discovery.requirements_hash(directory)
        if not present:
            return DirState(fp, trusted, None, req)
        if not trusted:
            if directory not in state.warned_untrusted:
                state.warned_untrusted.add(directory)
                self._problem(
                    state.scope, state.owner, directory, "untrusted", f"project plugins in {directory} do not run: {verdict.reason}"
                )
            return DirState(fp, trusted, None, req)
        state.warned_untrusted.discard(directory)
        try:
            python = await venv.ensure(directory, self.environ)
        except (venv.InstallFailed, OSError) as exc:
            self._problem(state.scope, state.owner, directory, "install", f"installing {directory}/requirements.txt failed: {exc}")
            # Keep the previous host serving; remember the new fingerprint so we do not retry in a loop.
            return DirState(fp, trusted, old.host if old else None, req)
        host = HostHandle(directory, state.scope, state.owner, python, self)
        try:
            await host.start()
        except HookFailure as exc:
            self._problem(state.scope, state.owner, directory, "host", f"the plugin host for {directory} did not load: {exc}")
            return DirState(fp, trusted, old.host if old else None, req)
        self.publish(
            "hookd.plugin.loaded",
            {"directory": directory, "scope": state.scope, "handlers": host.handlers},
            state.owner if state.scope == "project" else None,
        )
        log.info("plugins loaded", directory=directory, scope=state.scope, events=sorted(host.handlers))
        return DirState(fp, trusted, host, req)

    def _hooks(self, host: HostHandle) -> list[Hook]:
        hooks = []
        base = os.path.basename(host.directory)
        for event in host.handlers:
            try:
                point = points.lookup(event)
            except points.UnknownPoint as exc:
                self.report(host, "load", event, ",".join(host.handlers[event]), str(exc))
                continue
            hooks.append(
                Hook(
                    name=f"{base}:{event}",
                    point=event,
                    type="decision" if point.kind == "decision" else "observer",
                    scope=host.scope,
                    owner=host.owner,
                    source=host.directory,
                    runner=host,
                    timeout=self.hook_timeout,
                )
            )
        return hooks

    async def _load_scope(self, state: ScopeState) -> None:
        async with state.lock:
            recheck_trust = self.trust_generation != state.trust_seen
            state.trust_seen = self.trust_generation
            new: dict[str, DirState] = {}
            for directory in self.dirs(state.scope, state.owner):
                old = state.dirs.get(directory)
                if old is not None and not self._changed(state, directory, old, recheck_trust):
                    new[directory] = old
                    continue
                new[directory] = await self._load_dir(state, directory, old)
            # Re-register every directory of the scope, in order, so a reload never reorders them.
            for directory, d in new.items():
                hooks = self._hooks(d.host) if d.host is not None else []
                self.registry.replace_source(state.scope, state.owner, directory, hooks)
            retired = [
                old.host
                for directory, old in state.dirs.items()
                if old.host is not None and (directory not in new or new[directory].host is not old.host)
            ]
            state.dirs = new
        for host in retired:
            self.spawn(host.retire())

    def _changed(self, state: ScopeState, directory: str, old: DirState, recheck_trust: bool) -> bool:
        if discovery.fingerprint(directory) != old.fingerprint:
            return True
        if state.scope == "project" and recheck_trust and any(n.endswith(".py") for n, _, _ in old.fingerprint):
            return self.trusted(directory).trusted != old.trusted
        return False  # a failed host also waits here for an edit

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_INTERVAL)
            for state in list(self.scopes.values()):
                if state.lock.locked():
                    continue
                trust_moved = self.trust_generation != state.trust_seen and state.scope == "project"
                if trust_moved or any(discovery.fingerprint(d) != s.fingerprint for d, s in state.dirs.items()):
                    try:
                        await self._load_scope(state)
                    except Exception:
                        log.exception("plugin reload failed", scope=state.scope, owner=state.owner)
