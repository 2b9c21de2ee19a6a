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
from .engine import Engine
from .registry import CallContext, Hook, Registry
from .runners.callback import CallbackRunner, Invocations
from .runners.command import CommandRunner, Limits
from .sessions import Ownership
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
        }
        self.invocations = Invocations()
        self.ownership = Ownership(self.settings.session_grace, self.expire_session)
        self._handlers[m.AttachHooks] = self.attach_hooks

    # ------------------------------------------------------------ connections

    def on_connect(self, conn: Any) -> None:
        pass

    def on_disconnect(self, conn: Any) -> None:
        self.disconnected(conn)

    def begin_shutdown(self) -> None:
        """A stop has begun (issue 6): new requests get SHUTTING_DOWN, in-flight ones may finish.

        Hook point for the event stream (issue 4): tell every subscriber here that
        its stream ends, so a subscriber does not hold the drain until its deadline.
        """
        self.closing = True

    # ------------------------------------------------------------- user files

    def start(self) -> None:
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
            return exc.problems
        hooks = [self.command_hook(spec, scope, owner, path) for spec in specs]
        removed, added = self.registry.replace_source(scope, owner, path, hooks)
        if removed or added:
            log.info("hook file loaded", file=path, scope=scope, hooks=len(added), replaced=len(removed))
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
            return self.engine.decided_without_hooks(plan, req.payload, ctx).outcome(req.id)
        return self._decide(req.id, plan, req.payload, ctx)

    async def _decide(self, rid: int, plan: Any, payload: dict[str, Any], ctx: CallContext) -> m.Reply:
        state = await self.engine.decide(plan, payload, ctx)
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
        log.info("session attached", session=req.session, project=project, hooks=len(added))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def dispose_session(self, conn: Any, req: m.DisposeSession) -> Result:
        hooks = self.end_session(req.session, "disposed")
        if hooks is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no session {req.session!r}")
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
        self.ownership.forget_hooks([hook])
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

    # --- callback hooks and session ownership (issue 5)

    def _callback_hook(self, conn: Any, spec: m.CallbackSpec, session_id: str) -> Hook:
        try:
            points.check_hook(spec.point, spec.type)
        except points.UnknownPoint as exc:
            raise RequestError(m.ErrorCode.UNKNOWN_POINT, f"hook {spec.name!r}: {exc}") from None
        except points.WrongKind as exc:
            raise RequestError(m.ErrorCode.WRONG_KIND, f"hook {spec.name!r}: {exc}") from None
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
        if req.fresh:
            old = self.registry.drop_layer("session", req.session)
            self.ownership.forget_hooks(old)
        added = self.registry.add(hooks)
        self.ownership.serve(conn, (h for h in added if isinstance(h.runner, CallbackRunner)))
        log.info("session attached", session=req.session, project=project, hooks=len(added), fresh=req.fresh)
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
        """Dispose a session and publish it on ``session.disposed``; None when there was no such session."""
        known = self.registry.sessions.get(session_id)
        session, hooks = self.registry.dispose_session(session_id)
        if session is None and not hooks:
            return None
        self.ownership.forget_session(session_id, known.owner if known is not None else None)
        self.ownership.forget_hooks(hooks)
        project = session.project if session is not None else None
        log.info("session disposed", session=session_id, hooks=len(hooks), reason=reason)
        plan = self.registry.plan("session.disposed", None, project)
        if plan.observers:
            payload = {"session": session_id, "project": project, "reason": reason, "hooks": len(hooks)}
            self.engine.emit(plan, payload, CallContext("session.disposed", None, project))
        return hooks
