"""The daemon's state and what each request does to it.

``Daemon.handle`` maps one decoded request to its reply. It answers at once
(a Reply) when nothing has to wait, which is the common case (no hooks, or
observers only), and returns a coroutine otherwise; the connection layer
writes whichever it gets. Nothing here knows about sockets.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import os
import re
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog
from hookd_client import messages as m

from . import __version__, changes, points, toggles, trust, userconfig
from .bus import BusError, make_bus
from .engine import Engine
from .matcher import compile_match
from .plugins import trust as plugin_trust
from .plugins.manager import PluginManager
from .registry import CallContext, Hook, Registry
from .runners.callback import CallbackRunner, Invocations
from .runners.command import CommandRunner, Limits
from .runners.persistent import PersistentRunner
from .sessions import Ownership
from .settings import Settings
from .watcher import FileWatcher, signature

log = structlog.get_logger("hookd.daemon")

Result = m.Reply | Coroutine[Any, Any, m.Reply]
_CLASH = "duplicate hook name in this scope:"
_WARNINGS = frozenset({"hookd.config.rejected", "hookd.hooks.untrusted_skipped"})


class RequestError(Exception):
    """A request that cannot be served; becomes an Error reply with ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _project(path: str | None) -> str | None:
    if path is None:
        return None
    if not os.path.isabs(path):
        raise RequestError(m.ErrorCode.BAD_REQUEST, f"project must be an absolute path, got {path!r}")
    return os.path.normpath(path)


def _check_point(hook: str, point: str, hook_type: str) -> None:
    """A hook may be registered on ``point``; else a RequestError naming the hook."""
    try:
        points.check_hook(point, hook_type)
    except points.UnknownPoint as exc:
        raise RequestError(m.ErrorCode.UNKNOWN_POINT, f"hook {hook!r}: {exc}") from None
    except points.WrongKind as exc:
        raise RequestError(m.ErrorCode.WRONG_KIND, f"hook {hook!r}: {exc}") from None


def _point(name: str) -> points.Point:
    try:
        return points.lookup(name)
    except points.UnknownPoint as exc:
        raise RequestError(m.ErrorCode.UNKNOWN_POINT, str(exc)) from None


# Set inside the tasks that show internal events to `event` observers: what those
# observers cause (their own failures, say) is published but not shown to them again,
# so a failing catch-all observer cannot feed itself an endless stream of errors.
_OBSERVING_INTERNAL: contextvars.ContextVar[bool] = contextvars.ContextVar("observing_internal", default=False)


class Daemon:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.registry = Registry(project_loader=self.load_project)
        self.engine = Engine()
        self.bus = make_bus(self.settings)
        self._background: set[asyncio.Task[Any]] = set()  # emits waiting for a first plugin load
        self.engine.on_hook_error = self.bus.hook_error
        self.bus.on_internal = self._observe_internal
        self.commands = CommandRunner(Limits(self.settings.stdout_cap, self.settings.stderr_cap, self.settings.max_hook_processes))
        self.persistent = PersistentRunner(self.commands)  # issue 7: mode: persistent
        self.persistent.on_worker_failed = lambda w: self.bus.internal(
            "hookd.worker.failed", {"worker": w.name, "failures": w.failures, "error": w.error}
        )
        self.started = time.monotonic()
        self.connections = 0
        self.calls = 0
        self.closing = False
        self.plugins = PluginManager(
            self.registry, self.publish, self.settings.socket, self.settings.hook_timeout, self.commands.groups, self._plugins_trusted
        )
        self._handlers: dict[type[m.Request], Callable[[Any, m.Request], Result]] = {
            m.Emit: self.emit,
            m.Decide: self.decide,
            m.AttachSession: self.attach_session,
            m.DisposeSession: self.dispose_session,
            m.DisposeProject: self.dispose_project,
            m.Register: self.register,
            m.Unregister: self.unregister,
            m.ReloadUserHooks: self.reload_user_hooks,
            m.EnableHook: self.enable_hook,
            m.DisableHook: self.disable_hook,
            m.Explain: self.explain,
            m.StatusRequest: self.status,
            m.ListHooks: self.list_hooks,
            m.Trust: self.trust_files,
            m.Untrust: self.untrust_files,
            m.Subscribe: self.subscribe,
            m.Unsubscribe: self.unsubscribe,
        }
        self.trust = trust.TrustStore(trust_all=trust.trust_all_from_env())
        self.toggles_path = toggles.default_path()
        self.watcher = FileWatcher(self._file_changed, _watch_interval())
        self.rejected: dict[str, list[userconfig.Problem]] = {}  # file -> why its latest version was refused
        self._skips_reported: set[str] = set()  # files whose untrusted hooks were already reported skipped
        self.registry.on_untrusted = self._untrusted_skipped
        self.invocations = Invocations()
        self.ownership = Ownership(self.settings.session_grace, self.expire_session)
        self._handlers[m.AttachHooks] = self.attach_hooks

    # ------------------------------------------------------------ connections

    def on_connect(self, conn: Any) -> None:
        pass

    def on_disconnect(self, conn: Any) -> None:
        self.bus.detach(conn)
        self.disconnected(conn)

    def _observe_internal(self, point: str, payload: dict[str, Any], session: str | None, project: str | None) -> None:
        """Show an internal event to the catch-all `event` observers (seed 004: `event` sees every bus event)."""
        if _OBSERVING_INTERNAL.get() or self.closing:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (start-up before the loop, unit tests)
        plan = self.registry.plan(point, session, project)
        if not plan.observers:
            return
        token = _OBSERVING_INTERNAL.set(True)
        try:  # the observer tasks copy this context, flag included
            self.engine.observe(plan.observers, payload, CallContext(point, session, project))
        finally:
            _OBSERVING_INTERNAL.reset(token)

    def begin_shutdown(self) -> None:
        """A stop has begun (issue 6): new requests get SHUTTING_DOWN, in-flight ones may finish.

        Subscribers hold no task, so they never hold the drain; they are told the
        daemon is stopping, and get ``hookd.daemon.stopped`` from :meth:`stop`.
        """
        self.closing = True
        self.watcher.stop()
        self.bus.internal("hookd.daemon.stopping", {"pid": os.getpid()})
        self.plugins.begin_shutdown()

    # ------------------------------------------------------------- user files

    def start(self) -> None:
        self.bus.start()
        self.bus.internal("hookd.daemon.started", {"pid": os.getpid(), "version": __version__})
        self._load_state()
        if self.settings.load_user_config:
            for path in userconfig.global_files():
                self.watcher.watch(path, ("global", ""))
            self.load_global()
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a unit test): no watching
        if self.watcher.interval > 0:
            self.watcher.start()

    def stop(self) -> None:
        """After the drain: the last events reach the journal."""
        self.watcher.stop()
        self.bus.internal("hookd.daemon.stopped", {"pid": os.getpid()})
        self.bus.close()

    def _load_state(self) -> None:
        error = self.trust.load()
        if error:
            log.error("trust record unreadable: no project file is trusted until it is fixed or re-trusted", error=error)
        recorded, error = toggles.load(self.toggles_path)
        if error:
            log.error("toggle record unreadable: hooks use their files' `enabled`", error=error)
        if recorded:
            self.registry.load_toggles(recorded)
        if self.trust.trust_all:
            log.warning("HOOKD_TRUST_ALL=1: every project hook file is trusted")

    def publish_internal(self, kind: str, data: dict[str, Any]) -> None:
        """An internal event (config reloaded or rejected, untrusted hooks skipped, toggles, trust):
        logged, and published on the bus under ``hookd.``."""
        (log.warning if kind in _WARNINGS else log.info)(kind, event_kind=kind, **data)
        project = data.get("project")
        self.bus.internal(kind, data, project=project if isinstance(project, str) else None)

    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str, verdict: trust.Verdict | None = None) -> Hook:
        return Hook(
            name=spec.name,
            point=spec.point,
            type=spec.type,
            scope=scope,
            owner=owner,
            source=source,
            runner=self.persistent if spec.mode == "persistent" else self.commands,
            priority=spec.priority,
            enabled=spec.enabled,
            timeout=spec.timeout or self.settings.hook_timeout,
            on_error=spec.on_error,
            spec=spec,
            trusted=verdict.trusted if verdict is not None else True,
            trust=verdict.reason if verdict is not None else "",
            matcher=compile_match(spec.match),
        )

    def _read(self, path: str) -> tuple[bytes | None, list[userconfig.Problem]]:
        sig = signature(path)  # taken before reading: an edit racing the read shows on the next poll
        try:
            with open(path, "rb") as f:
                data: bytes | None = f.read()
        except (FileNotFoundError, NotADirectoryError):
            data = None
        except OSError as exc:
            self.watcher.loaded(path, sig, None)
            return None, [userconfig.Problem(path, f"cannot read: {exc.strerror or exc}")]
        self.watcher.loaded(path, sig, hashlib.sha256(data).hexdigest() if data is not None else None)
        return data, []

    def load_file(self, scope: m.Scope, owner: str, path: str) -> list[userconfig.Problem]:
        """(Re)load one hook file as a whole; an invalid file leaves its previous hooks in force.

        The swap is one registry step: a call sees the old hooks of the file or the new ones.
        """
        data, problems = self._read(path)
        specs: list[m.HookSpec] = []
        if not problems and data is not None:
            try:
                specs = userconfig.validate(data.decode("utf-8"), path)
            except UnicodeDecodeError as exc:
                problems = [userconfig.Problem(path, f"not UTF-8 text: {exc}")]
            except userconfig.ConfigInvalid as exc:
                problems = exc.problems
            problems = problems or self._duplicates(scope, owner, path, specs)
        if problems:
            self.rejected[path] = problems
            self.publish_internal(
                "hookd.config.rejected",
                {"file": path, "scope": scope, "project": owner or None, "problems": [str(p) for p in problems]},
            )
            return problems
        self.rejected.pop(path, None)
        sha = hashlib.sha256(data).hexdigest() if data is not None else ""
        verdict = self.trust.verdict(scope, path, sha, owner)
        hooks = [self.command_hook(spec, scope, owner, path, verdict) for spec in specs]
        removed, added = self.registry.replace_source(scope, owner, path, hooks)
        self.hooks_removed(removed, reloaded=added)
        summary = changes.diff(removed, added)
        if summary or (removed and removed[0].trusted != verdict.trusted):
            self._skips_reported.discard(path)
        if summary:
            self.publish_internal(
                "hookd.config.reloaded",
                {
                    "file": path,
                    "scope": scope,
                    "project": owner or None,
                    "trusted": verdict.trusted,
                    "hooks": len(added),
                    **summary.as_dict(),
                },
            )
            # A sibling refused for a name clash may load now that this file's names changed.
            for sibling in self._siblings(scope, owner):
                if sibling != path and sibling in self.rejected and _clash(self.rejected[sibling]):
                    self.load_file(scope, owner, sibling)
        return []

    def _siblings(self, scope: m.Scope, owner: str) -> list[str]:
        return userconfig.global_files() if scope == "global" else userconfig.project_files(owner)

    def _duplicates(self, scope: m.Scope, owner: str, path: str, specs: list[m.HookSpec]) -> list[userconfig.Problem]:
        """Hook names must be unique in a scope: a name another file of the scope uses is refused here."""
        siblings = self._siblings(scope, owner)
        taken = {h.name: h.source for h in self.registry.layer(scope, owner) if h.source != path and h.source in siblings}
        return [
            userconfig.Problem(path, f"{_CLASH} {s.name!r}: {taken[s.name]} already defines it", s.name, "name")
            for s in specs
            if s.name in taken
        ]

    def _file_changed(self, path: str, tag: tuple[m.Scope, str]) -> None:
        scope, owner = tag
        self.load_file(scope, owner, path)

    def _untrusted_skipped(self, point: str, hooks: list[Hook]) -> None:
        by_file: dict[str, list[Hook]] = {}
        for hook in hooks:
            if hook.source not in self._skips_reported:
                by_file.setdefault(hook.source, []).append(hook)
        for source, skipped in by_file.items():
            self._skips_reported.add(source)
            self.publish_internal(
                "hookd.hooks.untrusted_skipped",
                {
                    "file": source,
                    "project": skipped[0].owner,
                    "point": point,
                    "hooks": [h.name for h in skipped],
                    "reason": skipped[0].trust,
                },
            )

    def load_global(self) -> list[userconfig.Problem]:
        problems: list[userconfig.Problem] = []
        for path in userconfig.global_files():
            problems += self.load_file("global", "", path)
        self.plugins.load("global", "")
        return problems

    def load_project(self, project: str) -> list[userconfig.Problem]:
        self.registry.mark_project_loaded(project)
        problems: list[userconfig.Problem] = []
        own = set(userconfig.global_files())
        for path in userconfig.project_files(project):
            if path in own:
                continue  # the home directory as a project: ~/.codingcode/hooks.yaml is the global file
            self.watcher.watch(path, ("project", project))
            problems += self.load_file("project", project, path)
        self.plugins.load("project", project)
        return problems

    def reload_all(self) -> list[userconfig.Problem]:
        """SIGHUP: every global file and every loaded project's files, read again."""
        problems = self.load_global() if self.settings.load_user_config else []
        for project in sorted(self.registry.loaded_projects):
            problems += self.load_project(project)
        return problems

    def hooks_removed(self, removed: list[Hook], reloaded: list[Hook] | None = None) -> None:
        """Stop the warm workers of removed (or changed) hooks; a reload gives failed ones a fresh start."""
        if self.persistent.owns_any(removed) or (reloaded and self.persistent.owns_any(reloaded)):
            self.persistent.prune(self.registry.all_hooks(), reset=reloaded or ())

    # --- plugins (issue 8)

    def publish(self, point: str, payload: dict[str, Any], project: str | None) -> None:
        """A daemon happening of the plugins (hookd.plugin.loaded, hookd.plugin.error), on the event bus."""
        self.bus.internal(point, payload, None, project)

    def _after_first_loads(self, project: str | None, reply: Callable[[], m.Reply]) -> Result:
        """``reply()`` now, or once the first plugin load of the call's scopes is done (bounded), so a
        listing made right after a project is first seen shows its plugins."""
        if self.plugins.first_loads and (loading := self.plugins.first_loads_for(project)):
            return self._reply_after(loading, reply)
        return reply()

    async def _reply_after(self, loading: list[asyncio.Task[None]], reply: Callable[[], m.Reply]) -> m.Reply:
        await self.plugins.wait_first_loads(loading)
        return reply()

    def _plugins_trusted(self, directory: str) -> trust.Verdict:
        return plugin_trust.project_plugins_trusted(self.trust, directory)

    # --------------------------------------------------------------- dispatch

    def handle(self, conn: Any, request: m.Request) -> Result:
        self.calls += 1
        handler = self._handlers.get(type(request))
        if handler is None:
            return m.Error(getattr(request, "id", 0), m.ErrorCode.BAD_REQUEST, f"{type(request).__name__} is not valid here")
        try:
            result = handler(conn, request)
        except RequestError as exc:
            return m.Error(getattr(request, "id", 0), exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed", request=type(request).__name__)
            return m.Error(getattr(request, "id", 0), m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
        if isinstance(result, m.Reply):
            return result
        return self._guard(getattr(request, "id", 0), result)

    async def _guard(self, rid: int, work: Awaitable[m.Reply]) -> m.Reply:
        try:
            return await work
        except RequestError as exc:
            return m.Error(rid, exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed")
            return m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")

    # --------------------------------------------------------------- requests

    def emit(self, conn: Any, req: m.Emit) -> Result:
        _point(req.point)
        project = _project(req.project)
        plan = self.registry.plan(req.point, req.session, project)
        if self.plugins.first_loads and (loading := self.plugins.first_loads_for(self.registry.project_for(req.session, project))):
            return self._emit_after_plugins(conn, req, loading)
        # The hot path (bench row 5): nothing to run, so no call context and no engine.
        # Whatever must see every call (the event bus) is done before this return.
        if not plan.observers:
            self.engine.counters.emits += 1
            project = self.registry.project_for(req.session, project)
            self.bus.publish("emit", req.point, req.session, project, req.payload, size=getattr(conn, "body_size", 0))
            return m.Accepted(req.id)
        ctx = CallContext(req.point, req.session, self.registry.project_for(req.session, project))
        tasks = self.engine.emit(plan, req.payload, ctx)
        self.bus.publish("emit", req.point, ctx.session, ctx.project, req.payload, size=getattr(conn, "body_size", 0))
        if not req.wait or not tasks:
            return m.Accepted(req.id, len(tasks))
        return self._emit_wait(req.id, tasks)

    def _emit_after_plugins(self, conn: Any, req: m.Emit, loading: list[asyncio.Task[None]]) -> Result:
        """An emit while a scope's plugins first load: accepted (and on the bus) now; its observers
        run once the load is done (bounded), so the plugins do not miss the scope's first events."""
        project = self.registry.project_for(req.session, _project(req.project))
        ctx = CallContext(req.point, req.session, project)
        self.bus.publish("emit", req.point, req.session, project, req.payload, size=getattr(conn, "body_size", 0))

        async def observe() -> list[asyncio.Task[m.HookError | None]]:
            await self.plugins.wait_first_loads(loading)
            return self.engine.emit(self.registry.plan(req.point, req.session, project), req.payload, ctx)

        if req.wait:
            return self._emit_wait_after(req.id, observe())
        task = asyncio.ensure_future(observe())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return m.Accepted(req.id)

    async def _emit_wait_after(self, rid: int, started: Awaitable[list[asyncio.Task[m.HookError | None]]]) -> m.Reply:
        return await self._emit_wait(rid, await started)

    async def _emit_wait(self, rid: int, tasks: list[asyncio.Task[m.HookError | None]]) -> m.Reply:
        results = await asyncio.gather(*tasks)
        return m.Accepted(rid, len(tasks), [e for e in results if e is not None])

    def decide(self, conn: Any, req: m.Decide) -> Result:
        point = _point(req.point)
        if point.kind != "decision":
            raise RequestError(
                m.ErrorCode.WRONG_KIND,
                f"{req.point!r} is an observer point; use emit (decision points: `hookd points`)",
            )
        project = _project(req.project)
        plan = self.registry.plan(req.point, req.session, project)
        if self.plugins.first_loads and (loading := self.plugins.first_loads_for(self.registry.project_for(req.session, project))):
            ctx = CallContext(req.point, req.session, self.registry.project_for(req.session, project))
            return self._decide_after_plugins(req, loading, ctx, getattr(conn, "body_size", 0))
        # The hot path (bench row 1): an empty outcome, which is also what the bus records
        # (it reads decision, reason, decided_by and errors, as from a ChainState).
        if not plan.decisions and not plan.observers:
            self.engine.counters.decides += 1
            reply = m.Outcome(req.id)
            project = self.registry.project_for(req.session, project)
            self.bus.publish("decide", req.point, req.session, project, req.payload, reply, size=getattr(conn, "body_size", 0))
            return reply
        ctx = CallContext(req.point, req.session, self.registry.project_for(req.session, project))
        if not plan.decisions:
            state = self.engine.decided_without_hooks(plan, req.payload, ctx)
            self.bus.publish("decide", req.point, ctx.session, ctx.project, req.payload, state, size=getattr(conn, "body_size", 0))
            return state.outcome(req.id)
        return self._decide(req.id, plan, req.payload, ctx, getattr(conn, "body_size", 0))

    async def _decide(self, rid: int, plan: Any, payload: dict[str, Any], ctx: CallContext, size: int = 0) -> m.Reply:
        started = time.perf_counter()
        state = await self.engine.decide(plan, payload, ctx)
        took = round((time.perf_counter() - started) * 1000, 3)
        self.bus.publish("decide", ctx.point, ctx.session, ctx.project, payload, state, took, size)
        return state.outcome(rid)

    async def _decide_after_plugins(self, req: m.Decide, loading: list[asyncio.Task[None]], ctx: CallContext, size: int) -> m.Reply:
        """The first calls of a scope wait (bounded) for its plugins, so they are not skipped while their host starts."""
        await self.plugins.wait_first_loads(loading)
        plan = self.registry.plan(req.point, req.session, ctx.project)
        return await self._decide(req.id, plan, req.payload, ctx, size)

    def _hooks_for(self, specs: list[m.HookSpec], scope: m.Scope, owner: str, source: str) -> list[Hook]:
        hooks = []
        for spec in specs:
            for path, pattern in spec.match.items():
                try:
                    re.compile(pattern)
                except re.error as exc:
                    message = f"hook {spec.name!r}: match {path}: not a valid regular expression: {exc}"
                    raise RequestError(m.ErrorCode.BAD_REQUEST, message) from None
            _check_point(spec.name, spec.point, spec.type)
            hooks.append(self.command_hook(spec, scope, owner, source))
        return hooks

    def _session(self, conn: Any, session_id: str, project: str | None, adding: int, replacing: bool = False) -> None:
        registry = self.registry
        if session_id not in registry.sessions and len(registry.sessions) >= self.settings.max_sessions:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"the daemon holds {len(registry.sessions)} sessions, its limit; dispose sessions you no longer use",
            )
        have = 0 if replacing else len(registry.layer("session", session_id))
        if have + adding > self.settings.max_hooks_per_session:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"session {session_id!r} would hold {have + adding} hooks, over the limit of {self.settings.max_hooks_per_session}",
            )
        known = registry.sessions.get(session_id)
        self.ownership.claim(conn, session_id, known.owner if known is not None else None)
        registry.attach_session(session_id, project, conn)

    def attach_session(self, conn: Any, req: m.AttachSession) -> Result:
        project = _project(req.project)
        hooks = self._hooks_for(req.hooks, "session", req.session, f"session:{req.session}")
        self._session(conn, req.session, project, len(hooks))
        added = self.registry.add(hooks)
        self.persistent.revive(added)
        log.info("session attached", session=req.session, project=project, hooks=len(added))
        self.bus.internal("hookd.session.attached", {"hooks": len(added)}, req.session, self.registry.project_for(req.session, project))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def dispose_session(self, conn: Any, req: m.DisposeSession) -> Result:
        hooks = self.end_session(req.session, "disposed")
        if hooks is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no session {req.session!r}")
        return m.Done(req.id, len(hooks))

    def dispose_project(self, conn: Any, req: m.DisposeProject) -> Result:
        project = _project(req.project)
        assert project is not None
        self.watcher.forget(userconfig.project_files(project))
        self.plugins.spawn(self.plugins.forget("project", project))
        hooks = self.registry.dispose_project(project)
        self.hooks_removed(hooks)
        return m.Done(req.id, len(hooks))

    def register(self, conn: Any, req: m.Register) -> Result:
        project = _project(req.project)
        if req.session is not None:
            hooks = self._hooks_for([req.hook], "session", req.session, f"session:{req.session}")
            self._session(conn, req.session, project, 1)
        elif project is not None:
            hooks = self._hooks_for([req.hook], "project", project, f"client:{getattr(conn, 'peer', '?')}")
        else:
            hooks = self._hooks_for([req.hook], "global", "", f"client:{getattr(conn, 'peer', '?')}")
        (hook,) = self.registry.add(hooks)
        self.persistent.revive([hook])
        return m.Registered(req.id, hook.handle)

    def unregister(self, conn: Any, req: m.Unregister) -> Result:
        hook = self.registry.by_handle(req.handle)
        if hook is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook with handle {req.handle!r}")
        self.ownership.forget_hooks([hook])
        count = self.registry.remove([hook])
        self.hooks_removed([hook])
        return m.Done(req.id, count)

    def reload_user_hooks(self, conn: Any, req: m.ReloadUserHooks) -> Result:
        project = _project(req.project)
        problems = self.load_project(project) if project is not None else self.load_global()
        if problems:
            raise RequestError(
                m.ErrorCode.CONFIG_INVALID,
                "some files were rejected and keep their previous hooks: " + "; ".join(str(p) for p in problems),
            )
        scope_hooks = self.registry.layer("project", project) if project else self.registry.layer("global", "")
        plugins = self.plugins.scopes.get(("project", project) if project else ("global", ""))
        if plugins is not None and plugins.task is not None and not plugins.task.done():
            return self._after_plugins(req.id, plugins.task, project)
        return m.Done(req.id, len(scope_hooks))

    async def _after_plugins(self, rid: int, task: asyncio.Task[None], project: str | None) -> m.Reply:
        """A reload answers once the scope's plugin hosts are loaded (installs included)."""
        await asyncio.shield(task)
        return m.Done(rid, len(self.registry.layer("project", project) if project else self.registry.layer("global", "")))

    def _toggle(self, req: m.EnableHook | m.DisableHook, enabled: bool) -> m.Reply:
        project = _project(req.project)
        count = self.registry.set_toggle(project, req.name, enabled)
        if not count:
            where = f"project {project}" if project else "the global hooks"
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook named {req.name!r} in {where}")
        try:
            toggles.save(self.toggles_path, self.registry.toggles)
        except OSError as exc:
            log.error("could not record the toggle; it holds until the daemon stops", error=str(exc))
        self.publish_internal("hookd.hook.toggled", {"name": req.name, "project": project, "enabled": enabled, "hooks": count})
        return m.Done(req.id, count)

    def enable_hook(self, conn: Any, req: m.EnableHook) -> Result:
        return self._toggle(req, True)

    def disable_hook(self, conn: Any, req: m.DisableHook) -> Result:
        return self._toggle(req, False)

    def explain(self, conn: Any, req: m.Explain) -> Result:
        _point(req.point)
        project = _project(req.project)
        resolved = self.registry.project_for(req.session, project)
        if resolved is not None:
            self.registry.ensure_project(resolved)

        def chain() -> m.Reply:
            decisions, observers = self.registry.explain(req.point, req.session, project)
            return m.Chain(req.id, req.point, decisions, observers)

        return self._after_first_loads(resolved, chain)

    def status(self, conn: Any, req: m.StatusRequest) -> Result:
        c = self.engine.counters
        return m.Status(
            req.id,
            __version__,
            os.getpid(),
            self.settings.socket,
            round(time.monotonic() - self.started, 3),
            self.connections,
            len(self.registry.sessions),
            self.registry.hook_count(),
            self.calls,
            c.emits,
            c.decides,
            c.hook_errors,
            self.persistent.pool.info(),
            len(self.bus.subscribers),
            self.bus.seq,
        )

    def welcome(self, rid: int) -> m.Welcome:
        s = self.settings
        return m.Welcome(
            rid,
            m.PROTOCOL_VERSION,
            "hookd",
            __version__,
            os.getpid(),
            m.Limits(s.max_frame, s.hook_timeout, s.max_inflight),
        )

    # ------------------------------------------------------- issue 3: listing, trust

    def _info(self, hook: Hook, project: str | None) -> m.HookInfo:
        context = hook.owner if hook.scope == "project" else project
        toggles_ = self.registry.toggles
        toggled = (context, hook.name) in toggles_ or (hook.scope == "global" and (None, hook.name) in toggles_)
        spec = hook.spec
        return m.HookInfo(
            name=hook.name,
            point=hook.point,
            type=hook.type,
            scope=hook.scope,
            owner=hook.owner,
            source=hook.source,
            priority=hook.priority,
            enabled=self.registry.is_enabled(hook, context),
            default_enabled=hook.enabled,
            toggled=toggled,
            trusted=hook.trusted,
            trust=hook.trust,
            description=spec.description if spec is not None else "",
            match=dict(spec.match) if spec is not None else {},
            worker=self.persistent.state_of(hook) or "",
        )

    def list_hooks(self, conn: Any, req: m.ListHooks) -> Result:
        project = _project(req.project)
        if project is not None:
            self.registry.ensure_project(project)
        return self._after_first_loads(project, lambda: self._hook_list(req, project))

    def _hook_list(self, req: m.ListHooks, project: str | None) -> m.Reply:
        if project is not None:
            hooks = [*self.registry.layer("project", project), *self.registry.layer("global", "")]
            files = set(userconfig.project_files(project)) | set(userconfig.global_files())
        else:
            hooks = list(self.registry.all_hooks())
            files = set(self.rejected)
        order = {"session": 0, "project": 1, "global": 2}
        hooks.sort(key=lambda h: (order[h.scope], h.owner, h.point, -h.priority, h.seq))
        rejected = [m.FileProblem(f, [str(p) for p in ps]) for f, ps in sorted(self.rejected.items()) if f in files]
        return m.HookList(req.id, [self._info(h, project) for h in hooks], rejected)

    def _reload_files(self, files: list[str]) -> None:
        loaded = self.registry.loaded_projects
        for path in files:
            scope, owner = userconfig.scope_of(path)
            if scope == "project" and owner in loaded:
                self.load_file("project", owner, path)

    def trust_files(self, conn: Any, req: m.Trust) -> Result:
        path = _project(req.path)
        assert path is not None
        try:
            files = trust.targets(path)
        except trust.NothingToTrust as exc:
            raise RequestError(m.ErrorCode.NOT_FOUND, str(exc)) from None
        for f in files:
            if userconfig.scope_of(f)[0] == "global":
                raise RequestError(m.ErrorCode.BAD_REQUEST, f"{f} is a global hook file: those are always trusted")
        try:
            done = self.trust.trust(files)
        except OSError as exc:
            raise RequestError(m.ErrorCode.INTERNAL, f"could not record trust: {exc}") from None
        self._reload_files(files)
        self.plugins.trust_changed()
        self.publish_internal("hookd.trust.granted", {"files": {f: sha[:12] for f, sha in done.items()}})
        return m.TrustResult(req.id, [m.TrustedFile(f, sha) for f, sha in done.items()])

    def untrust_files(self, conn: Any, req: m.Untrust) -> Result:
        path = _project(req.path)
        assert path is not None
        try:
            gone = self.trust.untrust(path)
        except OSError as exc:
            raise RequestError(m.ErrorCode.INTERNAL, f"could not record trust: {exc}") from None
        if not gone:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"nothing is trusted at {path}")
        self._reload_files(gone)
        self.plugins.trust_changed()
        self.publish_internal("hookd.trust.revoked", {"files": gone})
        return m.TrustResult(req.id, [m.TrustedFile(f) for f in gone])

    # --- event stream (issue 4)

    def subscribe(self, conn: Any, req: m.Subscribe) -> Result:
        try:
            return self.bus.subscribe(conn, req)
        except BusError as exc:
            raise RequestError(exc.code, exc.message) from None

    def unsubscribe(self, conn: Any, req: m.Unsubscribe) -> Result:
        try:
            return self.bus.unsubscribe(conn, req)
        except BusError as exc:
            raise RequestError(exc.code, exc.message) from None

    # --- callback hooks and session ownership (issue 5)

    def _callback_hook(self, conn: Any, spec: m.CallbackSpec, session_id: str) -> Hook:
        _check_point(spec.name, spec.point, spec.type)
        return Hook(
            name=spec.name,
            point=spec.point,
            type=spec.type,
            scope="session",
            owner=session_id,
            source=f"client:{getattr(conn, 'peer', '?')}",
            runner=CallbackRunner(self.invocations, conn, spec.cb),
            priority=spec.priority,
            timeout=spec.timeout or self.settings.hook_timeout,
            on_error=spec.on_error,
        )

    def attach_hooks(self, conn: Any, req: m.AttachHooks) -> Result:
        project = _project(req.project)
        source = f"session:{req.session}"
        hooks: list[Hook] = []
        for entry in req.hooks:
            if isinstance(entry, m.CommandEntry):
                hooks += self._hooks_for([entry.spec], "session", req.session, source)
            else:
                hooks.append(self._callback_hook(conn, entry.spec, req.session))
        self._session(conn, req.session, project, len(hooks), replacing=req.fresh)
        old: list[Hook] = []
        if req.fresh:
            old = self.registry.drop_layer("session", req.session)
            self.ownership.forget_hooks(old)
        added = self.registry.add(hooks)
        self.hooks_removed(old, reloaded=added)
        self.ownership.serve(conn, (h for h in added if isinstance(h.runner, CallbackRunner)))
        log.info("session attached", session=req.session, project=project, hooks=len(added), fresh=req.fresh)
        self.bus.internal("hookd.session.attached", {"hooks": len(added)}, req.session, self.registry.project_for(req.session, project))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def invoke_result(self, conn: Any, req: m.InvokeResult) -> None:
        self.invocations.resolve(conn, req)

    def disconnected(self, conn: Any) -> None:
        """The owner of some sessions or callback hooks went away (see hookd/sessions.py)."""
        self.invocations.drop(conn)
        hooks, orphans = self.ownership.disconnect(conn)
        if hooks:
            self.registry.remove(hooks)
        for session_id in orphans:
            session = self.registry.sessions.get(session_id)
            if session is not None and session.owner is conn:
                session.owner = None
        if hooks or orphans:
            log.info("owner disconnected", callback_hooks=len(hooks), sessions=len(orphans), grace=self.ownership.grace)

    def expire_session(self, session_id: str) -> None:
        session = self.registry.sessions.get(session_id)
        if session is not None and session.owner is None:
            self.end_session(session_id, "owner_gone")

    def end_session(self, session_id: str, reason: str) -> list[Hook] | None:
        """Dispose a session and publish ``hookd.session.disposed``; None when there was no such session."""
        known = self.registry.sessions.get(session_id)
        session, hooks = self.registry.dispose_session(session_id)
        if session is None and not hooks:
            return None
        self.hooks_removed(hooks)
        self.ownership.forget_session(session_id, known.owner if known is not None else None)
        self.ownership.forget_hooks(hooks)
        project = session.project if session is not None else None
        log.info("session disposed", session=session_id, hooks=len(hooks), reason=reason)
        self.bus.internal("hookd.session.disposed", {"reason": reason, "hooks": len(hooks)}, session_id, project)
        return hooks


def _watch_interval() -> float:
    """``$HOOKD_WATCH_INTERVAL`` seconds between polls of the hook files (0: do not watch; SIGHUP still reloads)."""
    try:
        return max(0.0, float(os.environ.get("HOOKD_WATCH_INTERVAL", "0.25")))
    except ValueError:
        log.error("HOOKD_WATCH_INTERVAL is not a number of seconds; using 0.25")
        return 0.25


def _clash(problems: list[userconfig.Problem]) -> bool:
    return all(p.message.startswith(_CLASH) for p in problems)
