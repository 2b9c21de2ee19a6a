"""One plugin directory's host process, as the runner of that directory's hooks.

A host is a worker of the shared worker manager (hookd/runners/workers.py): the worker
starts it, restarts it with backoff when it dies, kills it when a call is
abandoned, and marks it failed after repeated failures. A changed file makes a
new HostHandle, so a failed host waits for an edit.

Leases: the engine takes ``lease(hook)`` on every hook of a call's plan when
the call starts and releases it when the call ends. A reload swaps in a new
host and *retires* the old one, which is stopped only once no lease is left:
a call planned before the swap is answered by the host it was planned with,
never by a stopped one. A call planned after it gets the new host.

:class:`Unloaded` is the runner of a directory's hooks while it has no host
(still loading or installing, or its install or start failed): it raises
HookNotRun, so the call names those hooks under ``not_run``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog
from hookd_client.messages import Decision, HookError, HookRef, NotRunReason, Scope

from hookd.core import intake
from hookd.core.chain import HookNotRun, once
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook
from hookd.plugins import snapshot, venv
from hookd.plugins.host import BOOT, CONFIG_ENV, DESCRIBE
from hookd.runners.workers import Worker

if TYPE_CHECKING:
    from hookd.runners.command import ProcessGroups
    from hookd.runners.workers import WorkerLimits

log = structlog.get_logger("hookd.plugins")

HOST_CONCURRENCY = 64  # requests in flight per host: async handlers interleave, sync ones queue in the host


class PluginDecision(Decision):
    """A host's decision plus the errors of handlers that failed without stopping the chain (not on the wire)."""

    handler_errors: list[HookError] = []


@dataclass(slots=True)
class Unloaded:
    """The runner of a directory's hooks while it has no host: every call names them as not run."""

    directory: str
    reason: NotRunReason = "not_loaded"
    message: str = ""

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        raise HookNotRun(self.reason, self.message or f"the plugins of {intake.safe_text(self.directory)} are not loaded yet")


class HostOwner(Protocol):
    """What a host asks of the plugin manager that runs it (hookd/plugins/manager.py): the daemon's
    socket and environment, process groups and limits, a place for background work, and where its
    failures are reported."""

    socket: str
    environ: dict[str, str]
    groups: ProcessGroups
    limits: WorkerLimits
    load_timeout: float

    def config_json(self, host: HostHandle) -> str: ...

    def spawn(self, work: Awaitable[Any]) -> asyncio.Task[Any]: ...

    def report(self, host: HostHandle, kind: str, point: str, handler: str, message: str) -> None: ...


@dataclass(slots=True, eq=False)
class HostHandle:
    directory: str
    scope: Scope
    owner: str
    python: str | None
    manager: HostOwner
    copy: snapshot.Copy
    handlers: dict[str, list[str]] = field(default_factory=dict)
    worker: Worker | None = None
    leases: int = 0
    retiring: bool = False
    stopping: asyncio.Task[None] | None = None

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
        site = venv.site_packages(self.python) if self.python is not None else ""
        lib = venv.host_lib(self.manager.environ)
        return [python, "-I", "-S", "-B", "-c", BOOT, lib, site, self.copy.files, self.directory], env

    def _failed(self, worker: Worker) -> None:
        self.manager.report(self, "host", "", "", f"the plugin host was marked failed: {worker.error}; save a plugin file to retry")

    async def start(self) -> dict[str, Any]:
        """Start the host (it loads its plugins) and ask what it handles. Raises HookFailure."""
        argv, env = self._argv_env()
        where = "" if self.scope == "global" else f":{self.owner.rstrip('/').rpartition('/')[2]}"
        worker = Worker(
            f"plugins {intake.safe_text(self.directory)} ({self.scope}{intake.safe_text(where)})",
            argv,
            env=env,
            cwd=self.copy.cwd,
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
        self.handlers = {intake.safe_text(str(k)): [intake.safe_text(str(x)) for x in v] for k, v in handlers.items()}
        for err in errors:
            if isinstance(err, dict):
                point = str(err.get("point", ""))  # "config" for a config handler's error; "" for an import error
                self.manager.report(self, "load", point, str(err.get("handler", "?")), str(err.get("message", "")))
        return answer

    # ------------------------------------------------------------ leases

    def lease(self, hook: Hook) -> Callable[[], None]:
        """Hold this host for one call: it is not stopped before ``release()`` (idempotent)."""
        self.leases += 1

        def release() -> None:
            self.leases -= 1
            if self.retiring and self.leases == 0:
                self._stop()

        return once(release)

    def retire(self) -> asyncio.Task[None] | None:
        """No new call will be planned with this host: stop it once the last lease is released."""
        self.retiring = True
        if self.leases == 0:
            self._stop()
        elif self.stopping is None:
            log.info(
                "plugin host retiring; it stops when its leased calls end", directory=intake.safe_text(self.directory), leases=self.leases
            )
        return self.stopping

    def _stop(self) -> None:
        if self.stopping is None:
            self.stopping = self.manager.spawn(self._stop_now())

    async def _stop_now(self) -> None:
        """EOF on its stdin, so it answers what it holds and exits; killed after the grace. Then its copy goes."""
        try:
            if self.worker is not None:
                await self.worker.stop()
        finally:
            await asyncio.to_thread(self.copy.remove)

    # ------------------------------------------------------------ calls

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        """The Runner of every hook this directory registered. The engine's timeout cancels the request,
        and the worker manager then kills the host (a handler that never returns may hold its only thread)."""
        worker = self.worker
        assert worker is not None, "hooks are registered only once the host answered"
        if worker.failed:
            raise HookNotRun("plugin_failed", f"the plugin host of {intake.safe_text(self.directory)} is marked failed: {worker.error}")
        request: dict[str, Any] = {
            "point": ctx.point,
            "session": ctx.session,
            "project": ctx.project,
            "hook": hook.name,
            "event": hook.point,
            "payload": payload,
        }
        if ctx.replay:  # the host's environment is fixed when it starts: a replayed call says so itself
            request["replay"] = True
        release = self.lease(hook)  # a retire waits for this answer too, leased by the engine or not
        try:
            answer = await worker.request(request)
        finally:
            release()
        return self._answer(hook, ctx, answer)

    def _answer(self, hook: Hook, ctx: CallContext, answer: dict[str, Any]) -> Decision | None:
        if "error" in answer:
            raise HookFailure("error", intake.safe_text(str(answer["error"])))
        try:
            intake.check(answer.get("decision"), "the plugin's answer")
            intake.check(answer.get("errors"), "the plugin's handler errors")
        except intake.Unfit as exc:
            raise HookFailure("error", f"{exc}; the answer was dropped") from None
        errors = [
            HookError(
                HookRef(f"{hook.name}/{intake.safe_text(str(e.get('handler', '?')))}", hook.scope, hook.source),
                "error",
                intake.safe_text(str(e.get("message", ""))),
            )
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
