"""The daemon's shared state and its one dispatch table.

``Daemon.handle`` maps one decoded request to its reply through the dispatch
table the feature modules of :mod:`hookd.daemon.handlers` fill (sessions,
configuration and trust, calls, stream, administration). A handler answers at
once (a Reply) when nothing has to wait, which is the common case (no hooks, or
observers only), and returns a coroutine otherwise; the connection layer writes
whichever it gets. Nothing here knows about sockets.
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import time
from collections.abc import Awaitable, Coroutine
from types import CoroutineType
from typing import Any

import structlog
from hookd_client import messages as m

from hookd import __version__
from hookd.config import plugin_trust, projects, toggles, trust, userconfig
from hookd.config.watcher import FileWatcher
from hookd.core.hooks import Verdict
from hookd.core.matcher import compile_match
from hookd.core.registry import CallContext, Hook, Registry
from hookd.core.settings import Settings
from hookd.daemon.approvals import Approvals
from hookd.daemon.handlers.admin import Admin
from hookd.daemon.handlers.approvals import ApprovalsFeature
from hookd.daemon.handlers.calls import Calls
from hookd.daemon.handlers.catalog import CatalogFeature
from hookd.daemon.handlers.common import Handler, Peer, RequestError, Result
from hookd.daemon.handlers.configuration import Configuration
from hookd.daemon.handlers.files import HookFiles
from hookd.daemon.handlers.replay import ReplayFeature
from hookd.daemon.handlers.sessions import Sessions
from hookd.daemon.handlers.stream import Stream
from hookd.daemon.sessions import Ownership
from hookd.engine.engine import Engine
from hookd.events.bus_setup import make_bus
from hookd.plugins.manager import PluginManager
from hookd.runners.callback import Invocations
from hookd.runners.command import CommandRunner, Limits
from hookd.runners.persistent import PersistentRunner
from hookd.team import Team

__all__ = ["Daemon", "RequestError", "Result"]

log = structlog.get_logger("hookd.daemon")

_WARNINGS = frozenset({"hookd.config.rejected", "hookd.hooks.untrusted_skipped"})

# Set inside the tasks that show internal events to `event` observers: what those
# observers cause (their own failures, say) is published but not shown to them again,
# so a failing catch-all observer cannot feed itself an endless stream of errors.
_OBSERVING_INTERNAL: contextvars.ContextVar[bool] = contextvars.ContextVar("observing_internal", default=False)


class Daemon:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.trust = trust.TrustStore(trust_all=trust.trust_all_from_env())
        self.registry = Registry(self.trust)
        self.engine = Engine()
        self.bus = make_bus(self.settings)
        self._background: set[asyncio.Task[Any]] = set()
        self.engine.on_hook_error = self._hook_failed
        self.bus.on_internal = self._observe_internal
        self.commands = CommandRunner(Limits(self.settings.stdout_cap, self.settings.stderr_cap, self.settings.max_hook_processes))
        # Observers shed under load are never silent: each report names the hook and how many calls it missed.
        self.commands.on_shed = lambda hook, ctx, count: self.bus.internal(
            "hookd.hook.shed",
            {"hook": hook.name, "scope": hook.scope, "source": hook.source, "point": ctx.point, "shed": count},
            ctx.session,
            ctx.project,
        )
        self.persistent = PersistentRunner(self.commands)
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
        self.toggles_path = toggles.default_path()
        self.team = Team(self)
        self.invocations = Invocations()
        # The features, and the one dispatch table their handlers make.
        self.files = HookFiles(self)
        self.sessions = Sessions(self)
        self.admin = Admin(self)
        self.watcher = FileWatcher(self.files.file_changed, _watch_interval(), projects.forget_spellings)
        self.registry.on_untrusted = self.files.untrusted_skipped
        self.approvals = Approvals(self.settings, self.bus.internal)
        self.ownership = Ownership(self.settings.session_grace, self.sessions.expire_session)
        self._handlers: dict[type[m.Request], Handler] = {}
        features = (
            self.sessions,
            Configuration(self),
            Calls(self),
            Stream(self),
            self.admin,
            CatalogFeature(),
            ApprovalsFeature(self),
            ReplayFeature(self),
        )
        for feature in features:
            self._handlers.update(feature.handlers())
        # The calls agents make around every tool, which the connection answers inline, through
        # this same dispatch (see Connection.data_received).
        self.inline: frozenset[type[m.Request]] = frozenset({m.Decide, m.Emit})

    # ------------------------------------------------------------ connections

    def on_connect(self, conn: Any) -> None:
        pass

    def on_disconnect(self, conn: Any) -> None:
        self.bus.detach(conn)
        self.approvals.leave(conn)
        self.sessions.disconnected(conn)

    def invoke_result(self, conn: Any, req: m.InvokeResult) -> None:
        self.sessions.invoke_result(conn, req)

    def welcome(self, rid: int) -> m.Welcome:
        return self.admin.welcome(rid)

    # -------------------------------------------------------------- lifecycle

    def start(self) -> None:
        self.bus.start()
        self.bus.internal("hookd.daemon.started", {"pid": os.getpid(), "version": __version__})
        self._load_state()
        if self.settings.load_user_config:
            for path in userconfig.global_files():
                self.watcher.watch(path, ("global", ""))
            self.files.load_global_now()
        self.team.start()  # the organisation's guards hold before any client is served
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving (a unit test): no watching
        if self.watcher.interval > 0:
            self.watcher.start()

    def begin_shutdown(self) -> None:
        """A stop has begun: new requests get SHUTTING_DOWN, in-flight ones may finish.

        Subscribers hold no task, so they never hold the drain; they are told the
        daemon is stopping, and get ``hookd.daemon.stopped`` from :meth:`stop`.
        """
        self.closing = True
        self.watcher.stop()
        self.team.stop()  # its connection's tasks must not hold the drain; the journal keeps what is not exported
        self.bus.internal("hookd.daemon.stopping", {"pid": os.getpid()})
        self.approvals.stop()  # calls waiting for a person get the default now, not at the drain's end
        self.plugins.begin_shutdown()

    def stop(self) -> None:
        """After the drain: the last events reach the journal."""
        self.watcher.stop()
        self.team.stop()
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

    def reload_all(self) -> asyncio.Task[Any]:
        """SIGHUP: every global file and every loaded project's files, read again (in the background)."""
        return self.background(self.files.reload_all(), "reloading every hook file")

    # ----------------------------------------------------------- shared parts

    def background(self, work: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run ``work`` as a task the daemon holds until it ends; what it raises is logged."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(lambda t: self._background_done(t, what))
        return task

    def _background_done(self, task: asyncio.Task[Any], what: str) -> None:
        self._background.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.error("background work failed", work=what, error=f"{type(exc).__name__}: {exc}", exc_info=exc)

    def publish_internal(self, kind: str, data: dict[str, Any]) -> None:
        """An internal event (config reloaded or rejected, untrusted hooks skipped, toggles, trust):
        logged, and published on the bus under ``hookd.``."""
        (log.warning if kind in _WARNINGS else log.info)(kind, event_kind=kind, **data)
        project = data.get("project")
        self.bus.internal(kind, data, project=project if isinstance(project, str) else None)

    def publish(self, point: str, payload: dict[str, Any], project: str | None) -> None:
        """A daemon happening of the plugins (hookd.plugin.loaded, hookd.plugin.error), on the event bus."""
        self.bus.internal(point, payload, None, project)

    def _hook_failed(self, hook: Hook, ctx: CallContext, code: str, message: str) -> None:
        """A hook failed: on the bus (hookd.hook.error / hookd.hook.timeout), and shown to the
        catch-all `event` observers like every other internal event."""
        point = "hookd.hook.timeout" if code == "timeout" else "hookd.hook.error"
        payload = {"hook": hook.name, "scope": hook.scope, "source": hook.source, "type": hook.type, "point": ctx.point, "message": message}
        self.bus.publish("internal", point, ctx.session, ctx.project, payload)
        self._observe_internal(point, payload, ctx.session, ctx.project)

    def _observe_internal(self, point: str, payload: dict[str, Any], session: str | None, project: str | None) -> None:
        """Show an internal event to the catch-all `event` observers (`event` sees every bus event)."""
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

    def trust_key(self, path: str) -> str:
        return trust.file_key(path)

    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str, trust_key: str = "", sha: str = "") -> Hook:
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
            trust_key=trust_key,
            sha=sha,
            matcher=compile_match(spec.match),
        )

    def hooks_removed(self, removed: list[Hook], reloaded: list[Hook] | None = None) -> None:
        """Stop the warm workers of removed (or changed) hooks; a reload gives failed ones a fresh start."""
        if self.persistent.owns_any(removed) or (reloaded and self.persistent.owns_any(reloaded)):
            self.persistent.prune(self.registry.all_hooks(), reset=reloaded or ())

    def _plugins_trusted(self, directory: str) -> Verdict:
        return plugin_trust.project_plugins_trusted(self.trust, directory)

    # --------------------------------------------------------------- dispatch

    def handle(self, conn: Peer, request: m.Request) -> Result:
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
        if type(result) is CoroutineType:  # work that waits: answered with an error reply if it raises
            return self.guard(getattr(request, "id", 0), result)
        return result  # a reply, or a future (a warm decide, hookd/engine/warm.py) whose failure the connection answers

    async def guard(self, rid: int, work: Awaitable[m.Reply]) -> m.Reply:
        """Work that waits, answered with an error reply if it raises."""
        try:
            return await work
        except RequestError as exc:
            return m.Error(rid, exc.code, exc.message)
        except Exception as exc:
            log.exception("request failed")
            return m.Error(rid, m.ErrorCode.INTERNAL, f"internal error: {type(exc).__name__}: {exc}")


def _watch_interval() -> float:
    """``$HOOKD_WATCH_INTERVAL`` seconds between polls of the hook files (0: do not watch; SIGHUP still reloads)."""
    try:
        return max(0.0, float(os.environ.get("HOOKD_WATCH_INTERVAL", "0.25")))
    except ValueError:
        log.error("HOOKD_WATCH_INTERVAL is not a number of seconds; using 0.25")
        return 0.25
