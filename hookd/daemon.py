"""The daemon's state and what each request does to it.

``Daemon.handle`` maps one decoded request to its reply. It answers at once
(a Reply) when nothing has to wait, which is the common case (no hooks, or
observers only), and returns a coroutine otherwise; the connection layer
writes whichever it gets. Nothing here knows about sockets.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import structlog
from hookd_client import messages as m

from . import __version__, points, userconfig
from .bus import BusError, make_bus
from .engine import Engine
from .registry import CallContext, Hook, Registry
from .runners.command import CommandRunner, Limits
from .settings import Settings

log = structlog.get_logger("hookd.daemon")

Result = m.Reply | Coroutine[Any, Any, m.Reply]


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


def _point(name: str) -> points.Point:
    try:
        return points.lookup(name)
    except points.UnknownPoint as exc:
        raise RequestError(m.ErrorCode.UNKNOWN_POINT, str(exc)) from None


class Daemon:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.registry = Registry(project_loader=self.load_project)
        self.engine = Engine()
        self.bus = make_bus(self.settings)
        self.engine.on_hook_error = self.bus.hook_error
        self.commands = CommandRunner(Limits(self.settings.stdout_cap, self.settings.stderr_cap, self.settings.max_hook_processes))
        self.started = time.monotonic()
        self.connections = 0
        self.calls = 0
        self.closing = False
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
            m.Subscribe: self.subscribe,
            m.Unsubscribe: self.unsubscribe,
        }

    # ------------------------------------------------------------ connections

    def on_connect(self, conn: Any) -> None:
        pass

    def on_disconnect(self, conn: Any) -> None:
        self.bus.detach(conn)

    def begin_shutdown(self) -> None:
        """A stop has begun (issue 6): new requests get SHUTTING_DOWN, in-flight ones may finish.

        Hook point for the event stream (issue 4): tell every subscriber here that
        its stream ends, so a subscriber does not hold the drain until its deadline.
        Subscribers hold no task, so they never hold the drain; they are told the
        daemon is stopping, and get ``hookd.daemon.stopped`` from :meth:`stop`.
        """
        self.closing = True
        self.bus.internal("hookd.daemon.stopping", {"pid": os.getpid()})

    # ------------------------------------------------------------- user files

    def start(self) -> None:
        self.bus.start()
        self.bus.internal("hookd.daemon.started", {"pid": os.getpid(), "version": __version__})
        if self.settings.load_user_config:
            self.load_global()

    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str) -> Hook:
        return Hook(
            name=spec.name,
            point=spec.point,
            type=spec.type,
            scope=scope,
            owner=owner,
            source=source,
            runner=self.commands,
            priority=spec.priority,
            enabled=spec.enabled,
            timeout=spec.timeout or self.settings.hook_timeout,
            on_error=spec.on_error,
            spec=spec,
        )

    def load_file(self, scope: m.Scope, owner: str, path: str) -> list[userconfig.Problem]:
        """(Re)load one hook file; an invalid file leaves its previous hooks in force."""
        try:
            specs = userconfig.load(path) or []
        except userconfig.ConfigInvalid as exc:
            for problem in exc.problems:
                log.error("hook file rejected; previous hooks stay in force", problem=str(problem))
            self.bus.internal("hookd.config.rejected", {"file": path, "scope": scope, "problems": [str(p) for p in exc.problems]})
            return exc.problems
        hooks = [self.command_hook(spec, scope, owner, path) for spec in specs]
        removed, added = self.registry.replace_source(scope, owner, path, hooks)
        if removed or added:
            log.info("hook file loaded", file=path, scope=scope, hooks=len(added), replaced=len(removed))
            self.bus.internal(
                "hookd.config.reloaded",
                {"file": path, "scope": scope, "hooks": len(added), "replaced": len(removed)},
                project=owner or None,
            )
        return []

    def load_global(self) -> list[userconfig.Problem]:
        problems: list[userconfig.Problem] = []
        for path in userconfig.global_files():
            problems += self.load_file("global", "", path)
        return problems

    def load_project(self, project: str) -> list[userconfig.Problem]:
        self.registry.mark_project_loaded(project)
        problems: list[userconfig.Problem] = []
        for path in userconfig.project_files(project):
            problems += self.load_file("project", project, path)
        return problems

    # --------------------------------------------------------------- dispatch

    def handle(self, conn: Any, request: m.Request) -> Result:
        self.calls += 1
        handler = self._handlers.get(type(request))
        rid: int = getattr(request, "id", 0)
        if handler is None:
            return m.Error(rid, m.ErrorCode.BAD_REQUEST, f"{type(request).__name__} is not valid here")
        try:
            result = handler(conn, request)
        except RequestError as exc:
            return m.Error(rid, exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed", request=type(request).__name__)
            return m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")
        if isinstance(result, m.Reply):
            return result
        return self._guard(rid, result)

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
        ctx = CallContext(req.point, req.session, self.registry.project_for(req.session, project))
        self.bus.publish("emit", req.point, ctx.session, ctx.project, req.payload, size=getattr(conn, "body_size", 0))
        tasks = self.engine.emit(plan, req.payload, ctx)
        if not req.wait or not tasks:
            return m.Accepted(req.id, len(tasks))
        return self._emit_wait(req.id, tasks)

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

    def _hooks_for(self, specs: list[m.HookSpec], scope: m.Scope, owner: str, source: str) -> list[Hook]:
        hooks = []
        for spec in specs:
            try:
                points.check_hook(spec.point, spec.type)
            except points.UnknownPoint as exc:
                raise RequestError(m.ErrorCode.UNKNOWN_POINT, f"hook {spec.name!r}: {exc}") from None
            except points.WrongKind as exc:
                raise RequestError(m.ErrorCode.WRONG_KIND, f"hook {spec.name!r}: {exc}") from None
            hooks.append(self.command_hook(spec, scope, owner, source))
        return hooks

    def _session(self, conn: Any, session_id: str, project: str | None, adding: int) -> None:
        registry = self.registry
        if session_id not in registry.sessions and len(registry.sessions) >= self.settings.max_sessions:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"the daemon holds {len(registry.sessions)} sessions, its limit; dispose sessions you no longer use",
            )
        have = len(registry.layer("session", session_id))
        if have + adding > self.settings.max_hooks_per_session:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"session {session_id!r} would hold {have + adding} hooks, over the limit of {self.settings.max_hooks_per_session}",
            )
        registry.attach_session(session_id, project, conn)

    def attach_session(self, conn: Any, req: m.AttachSession) -> Result:
        project = _project(req.project)
        hooks = self._hooks_for(req.hooks, "session", req.session, f"session:{req.session}")
        self._session(conn, req.session, project, len(hooks))
        added = self.registry.add(hooks)
        log.info("session attached", session=req.session, project=project, hooks=len(added))
        self.bus.internal("hookd.session.attached", {"hooks": len(added)}, req.session, self.registry.project_for(req.session, project))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def dispose_session(self, conn: Any, req: m.DisposeSession) -> Result:
        session, hooks = self.registry.dispose_session(req.session)
        if session is None and not hooks:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no session {req.session!r}")
        log.info("session disposed", session=req.session, hooks=len(hooks))
        self.bus.internal("hookd.session.disposed", {"hooks": len(hooks)}, req.session, session.project if session else None)
        return m.Done(req.id, len(hooks))

    def dispose_project(self, conn: Any, req: m.DisposeProject) -> Result:
        project = _project(req.project)
        assert project is not None
        return m.Done(req.id, len(self.registry.dispose_project(project)))

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
        return m.Registered(req.id, hook.handle)

    def unregister(self, conn: Any, req: m.Unregister) -> Result:
        hook = self.registry.by_handle(req.handle)
        if hook is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook with handle {req.handle!r}")
        return m.Done(req.id, self.registry.remove([hook]))

    def reload_user_hooks(self, conn: Any, req: m.ReloadUserHooks) -> Result:
        project = _project(req.project)
        problems = self.load_project(project) if project is not None else self.load_global()
        if problems:
            raise RequestError(
                "config_invalid",
                "some files were rejected and keep their previous hooks: " + "; ".join(str(p) for p in problems),
            )
        scope_hooks = self.registry.layer("project", project) if project else self.registry.layer("global", "")
        return m.Done(req.id, len(scope_hooks))

    def _toggle(self, req: m.EnableHook | m.DisableHook, enabled: bool) -> m.Reply:
        project = _project(req.project)
        count = self.registry.set_toggle(project, req.name, enabled)
        if not count:
            where = f"project {project}" if project else "the global hooks"
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook named {req.name!r} in {where}")
        return m.Done(req.id, count)

    def enable_hook(self, conn: Any, req: m.EnableHook) -> Result:
        return self._toggle(req, True)

    def disable_hook(self, conn: Any, req: m.DisableHook) -> Result:
        return self._toggle(req, False)

    def explain(self, conn: Any, req: m.Explain) -> Result:
        _point(req.point)
        decisions, observers = self.registry.explain(req.point, req.session, _project(req.project))
        return m.Chain(req.id, req.point, decisions, observers)

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

    def stop(self) -> None:
        """After the drain: the last events reach the journal."""
        self.bus.internal("hookd.daemon.stopped", {"pid": os.getpid()})
        self.bus.close()
