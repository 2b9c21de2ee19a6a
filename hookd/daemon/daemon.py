"""The daemon's composition root: its parts made and given to one another, its lifecycle.

Each part is made here with what it uses: the parts with happenings to tell (registry, engine,
runners) are given where to report them, the bus is given the one step that shows internal
events to `event` observers (daemon/internal.py), and each feature of daemon/handlers/ is given
the daemon as the parts it names. ``Daemon.handle`` is the one dispatch (daemon/dispatch.py).
Nothing here knows about sockets.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

import structlog
from hookd_client import messages as m

from hookd import __version__
from hookd.config import plugin_trust, projects, toggles, trust, userconfig
from hookd.config.watcher import FileWatcher, interval_from_env
from hookd.core.hooks import Verdict
from hookd.core.registry import Registry
from hookd.core.settings import Settings
from hookd.daemon.approvals import Approvals
from hookd.daemon.background import Background
from hookd.daemon.dispatch import Dispatch
from hookd.daemon.handlers.admin import Admin
from hookd.daemon.handlers.approvals import ApprovalsFeature
from hookd.daemon.handlers.calls import Calls
from hookd.daemon.handlers.catalog import CatalogFeature
from hookd.daemon.handlers.common import RequestError, Result
from hookd.daemon.handlers.configuration import Configuration
from hookd.daemon.handlers.files import HookFiles
from hookd.daemon.handlers.replay import ReplayFeature
from hookd.daemon.handlers.sessions import Sessions
from hookd.daemon.handlers.stream import Stream
from hookd.daemon.hookmaker import HookMaker
from hookd.daemon.internal import InternalObservers
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


class Daemon:
    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.trust = trust.TrustStore(trust_all=trust.trust_all_from_env())
        # Every part with happenings to tell is given where to tell them (report: the bus's internal
        # events), and the bus shows each internal event to the `event` observers in one step.
        self.registry = Registry(self.trust, notify=self.publish_internal)
        self.engine = Engine(report=self.report)
        self.observers = InternalObservers(self.registry, self.engine)
        self.bus = make_bus(self.settings, observe=self.observers.show)
        self.tasks = Background()
        self.background = self.tasks.run
        limits = Limits(self.settings.stdout_cap, self.settings.stderr_cap, self.settings.max_hook_processes)
        self.commands = CommandRunner(limits, report=self.report)
        self.persistent = PersistentRunner(self.commands, report=self.report)
        maker = HookMaker(self.settings, self.registry, self.commands, self.persistent)
        self.command_hook, self.hooks_removed = maker.command_hook, maker.hooks_removed
        self.started = time.monotonic()
        self.connections = 0
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
        self.watcher = FileWatcher(self.files.file_changed, interval_from_env(), projects.forget_spellings)
        self.approvals = Approvals(self.settings, self.bus.internal)
        self.ownership = Ownership(self.settings.session_grace, self.sessions.expire_session)
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
        self.dispatch = Dispatch(features)
        self.handle, self.guard = self.dispatch.handle, self.dispatch.guard
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
        self.observers.closing = True
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

    def publish_internal(self, kind: str, data: dict[str, Any]) -> None:
        """An internal event (config reloaded or rejected, untrusted hooks skipped, toggles, trust):
        logged, and published on the bus under ``hookd.``."""
        (log.warning if kind in _WARNINGS else log.info)(kind, event_kind=kind, **data)
        project = data.get("project")
        self.bus.internal(kind, data, project=project if isinstance(project, str) else None)

    def report(self, point: str, payload: dict[str, Any], session: str | None = None, project: str | None = None) -> None:
        """A daemon happening the parts tell (a hook failed or was shed, a worker failed), as an internal event."""
        self.bus.internal(point, payload, session, project)

    def publish(self, point: str, payload: dict[str, Any], project: str | None) -> None:
        """A daemon happening of the plugins (hookd.plugin.loaded, hookd.plugin.error), on the event bus."""
        self.bus.internal(point, payload, None, project)

    def trust_key(self, path: str) -> str:
        return trust.file_key(path)

    def _plugins_trusted(self, directory: str) -> Verdict:
        return plugin_trust.project_plugins_trusted(self.trust, directory)
