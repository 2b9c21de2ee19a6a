"""Sessions: attach, dispose, register and unregister hooks, callback hooks and who owns what."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

import structlog
from hookd_client import messages as m

from hookd.core.registry import Hook
from hookd.daemon.handlers.common import Handler, MakesHooks, Peer, RequestError, Result, check_point, project_arg
from hookd.guards.model import OptionsError
from hookd.runners.callback import CallbackRunner

if TYPE_CHECKING:
    from hookd.core.registry import Registry
    from hookd.core.settings import Settings
    from hookd.daemon.handlers.files import HookFiles
    from hookd.daemon.sessions import Ownership
    from hookd.events.bus import Bus
    from hookd.runners.callback import Invocations
    from hookd.runners.persistent import PersistentRunner

log = structlog.get_logger("hookd.daemon")


class SessionsParts(MakesHooks, Protocol):
    """What attaching, disposing and registering use: who owns what, the registry, callbacks in flight."""

    settings: Settings
    registry: Registry
    bus: Bus
    files: HookFiles
    ownership: Ownership
    invocations: Invocations
    persistent: PersistentRunner


class Sessions:
    def __init__(self, daemon: SessionsParts) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {
            m.AttachSession: self.attach_session,
            m.AttachHooks: self.attach_hooks,
            m.DisposeSession: self.dispose_session,
            m.DisposeProject: self.dispose_project,
            m.Register: self.register,
            m.Unregister: self.unregister,
        }

    # ------------------------------------------------------------- requests

    def attach_session(self, conn: Peer, req: m.AttachSession) -> Result:
        d = self.d
        project = project_arg(req.project)
        hooks = self.hooks_for(req.hooks, "session", req.session, f"session:{req.session}")
        self._session(conn, req.session, project, len(hooks))
        added = d.registry.add(hooks)
        d.persistent.revive(added)
        log.info("session attached", session=req.session, project=project, hooks=len(added))
        d.bus.internal("hookd.session.attached", {"hooks": len(added)}, req.session, d.registry.project_for(req.session, project))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def attach_hooks(self, conn: Peer, req: m.AttachHooks) -> Result:
        d = self.d
        project = project_arg(req.project)
        source = f"session:{req.session}"
        hooks: list[Hook] = []
        for entry in req.hooks:
            if isinstance(entry, m.CommandEntry):
                hooks += self.hooks_for([entry.spec], "session", req.session, source)
            else:
                hooks.append(self._callback_hook(conn, entry.spec, req.session))
        self._session(conn, req.session, project, len(hooks), replacing=req.fresh)
        old: list[Hook] = []
        if req.fresh:
            old = d.registry.drop_layer("session", req.session)
            d.ownership.forget_hooks(old)
        added = d.registry.add(hooks)
        d.hooks_removed(old, reloaded=added)
        d.ownership.serve(conn, (h for h in added if isinstance(h.runner, CallbackRunner)))
        log.info("session attached", session=req.session, project=project, hooks=len(added), fresh=req.fresh)
        d.bus.internal("hookd.session.attached", {"hooks": len(added)}, req.session, d.registry.project_for(req.session, project))
        return m.Attached(req.id, req.session, [h.handle for h in added])

    def dispose_session(self, conn: Peer, req: m.DisposeSession) -> Result:
        hooks = self.end_session(req.session, "disposed")
        if hooks is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no session {req.session!r}")
        return m.Done(req.id, len(hooks))

    def dispose_project(self, conn: Peer, req: m.DisposeProject) -> Result:
        d = self.d
        project = project_arg(req.project)
        assert project is not None
        d.files.dispose_project(project)  # its files and its plugins: loads under way dropped, hosts retired
        hooks = d.registry.dispose_project(project)
        d.hooks_removed(hooks)
        return m.Done(req.id, len(hooks))

    def register(self, conn: Peer, req: m.Register) -> Result:
        d = self.d
        project = project_arg(req.project)
        if req.session is not None:
            hooks = self.hooks_for([req.hook], "session", req.session, f"session:{req.session}")
            self._session(conn, req.session, project, 1)
        elif project is not None:
            hooks = self.hooks_for([req.hook], "project", project, f"client:{getattr(conn, 'peer', '?')}")
        else:
            hooks = self.hooks_for([req.hook], "global", "", f"client:{getattr(conn, 'peer', '?')}")
        (hook,) = d.registry.add(hooks)
        d.persistent.revive([hook])
        return m.Registered(req.id, hook.handle)

    def unregister(self, conn: Peer, req: m.Unregister) -> Result:
        d = self.d
        hook = d.registry.by_handle(req.handle)
        if hook is None:
            raise RequestError(m.ErrorCode.NOT_FOUND, f"no hook with handle {req.handle!r}")
        d.ownership.forget_hooks([hook])
        count = d.registry.remove([hook])
        d.hooks_removed([hook])
        return m.Done(req.id, count)

    def invoke_result(self, conn: Peer, req: m.InvokeResult) -> None:
        self.d.invocations.resolve(conn, req)

    # ---------------------------------------------------------------- owners

    def disconnected(self, conn: Peer) -> None:
        """The owner of some sessions or callback hooks went away (see hookd/daemon/sessions.py)."""
        d = self.d
        d.invocations.drop(conn)
        # The callback hooks it served stay configured until their session ends (at the end of
        # the grace period, or when it is disposed or attached afresh): a call meanwhile names
        # each as not run (disconnected) and its on_error applies, so a guard never just vanishes.
        hooks, orphans = d.ownership.disconnect(conn)
        for session_id in orphans:
            session = d.registry.sessions.get(session_id)
            if session is not None and session.owner is conn:
                session.owner = None
        if hooks or orphans:
            log.info("owner disconnected", callback_hooks=len(hooks), sessions=len(orphans), grace=d.ownership.grace)

    def expire_session(self, session_id: str) -> None:
        session = self.d.registry.sessions.get(session_id)
        if session is not None and session.owner is None:
            self.end_session(session_id, "owner_gone")

    def end_session(self, session_id: str, reason: str) -> list[Hook] | None:
        """Dispose a session and publish ``hookd.session.disposed``; None when there was no such session."""
        d = self.d
        known = d.registry.sessions.get(session_id)
        session, hooks = d.registry.dispose_session(session_id)
        if session is None and not hooks:
            return None
        d.hooks_removed(hooks)
        d.ownership.forget_session(session_id, known.owner if known is not None else None)
        d.ownership.forget_hooks(hooks)
        project = session.project if session is not None else None
        log.info("session disposed", session=session_id, hooks=len(hooks), reason=reason)
        d.bus.internal("hookd.session.disposed", {"reason": reason, "hooks": len(hooks)}, session_id, project)
        return hooks

    # --------------------------------------------------------------- helpers

    def hooks_for(self, specs: list[m.HookSpec], scope: m.Scope, owner: str, source: str) -> list[Hook]:
        hooks = []
        for spec in specs:
            for path, pattern in spec.match.items():
                try:
                    re.compile(pattern)
                except re.error as exc:
                    message = f"hook {spec.name!r}: match {path}: not a valid regular expression: {exc}"
                    raise RequestError(m.ErrorCode.BAD_REQUEST, message) from None
            check_point(spec.name, spec.point, spec.type)
            try:
                hooks.append(self.d.command_hook(spec, scope, owner, source))
            except OptionsError as exc:  # a built-in hook's packs or options
                raise RequestError(m.ErrorCode.BAD_REQUEST, f"hook {spec.name!r}: {exc}") from None
        return hooks

    def _callback_hook(self, conn: Peer, spec: m.CallbackSpec, session_id: str) -> Hook:
        check_point(spec.name, spec.point, spec.type)
        return Hook(
            name=spec.name,
            point=spec.point,
            type=spec.type,
            scope="session",
            owner=session_id,
            source=f"client:{getattr(conn, 'peer', '?')}",
            runner=CallbackRunner(self.d.invocations, conn, spec.cb),
            priority=spec.priority,
            timeout=spec.timeout or self.d.settings.hook_timeout,
            on_error=spec.on_error,
        )

    def _session(self, conn: Peer, session_id: str, project: str | None, adding: int, replacing: bool = False) -> None:
        d = self.d
        registry = d.registry
        if session_id not in registry.sessions and len(registry.sessions) >= d.settings.max_sessions:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"the daemon holds {len(registry.sessions)} sessions, its limit; dispose sessions you no longer use",
            )
        if session_id in registry.sessions:
            self._retire_dead_handlers(session_id)
        have = 0 if replacing else len(registry.layer("session", session_id))
        if have + adding > d.settings.max_hooks_per_session:
            raise RequestError(
                m.ErrorCode.LIMIT,
                f"session {session_id!r} would hold {have + adding} hooks, over the limit of {d.settings.max_hooks_per_session}",
            )
        known = registry.sessions.get(session_id)
        d.ownership.claim(conn, session_id, known.owner if known is not None else None)
        registry.attach_session(session_id, project, conn)

    def _retire_dead_handlers(self, session_id: str) -> None:
        """A connection claims the session: the handlers of a previous owner that went away can
        never answer again, and the new owner attaches what it serves itself."""
        d = self.d
        layer = d.registry.layer("session", session_id)
        dead = [h for h in layer if isinstance(h.runner, CallbackRunner) and h.runner.peer.transport is None]
        if dead:
            d.registry.remove(dead)
            d.hooks_removed(dead)
            log.info("handlers of a departed owner retired", session=session_id, hooks=len(dead))
