"""A daemon's team features, started and stopped with it: export and organisation guards.

Without a team settings file nothing here runs (and the NATS client is never
imported). With one, the guards last received are put in force at start, before
any client is served; the watch of the guards' bucket runs on the daemon's loop
(it wakes only when the bucket changes), and the exporter runs in a process of
its own, supervised from here (exportsup.py), so exporting never takes the
loop's time from a call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import structlog
from hookd_client import messages as m

from hookd.config.statefiles import state_home
from hookd.events import journal_files
from hookd.team import settings as team_settings
from hookd.team.managed import MANAGED_SCOPES, ManagedGuards, record_path

if TYPE_CHECKING:
    from hookd.team.exportsup import ExportSupervisor
    from hookd.team.guards import GuardWatch
    from hookd.team.host import TeamHost
    from hookd.team.link import Link

log = structlog.get_logger("hookd.team")


class Team:
    def __init__(self, daemon: TeamHost) -> None:
        self.d = daemon
        self.error = ""
        self.settings: team_settings.TeamSettings | None = None
        self.guards: ManagedGuards | None = None
        self.exporter: ExportSupervisor | None = None
        self.otel: ExportSupervisor | None = None
        self.watch: GuardWatch | None = None
        self.link: Link | None = None
        self._tasks: list[asyncio.Task[Any]] = []

    def start(self) -> None:
        """Load the settings and the guards' record; start exporting and watching when serving."""
        if not self.d.settings.load_user_config:
            return
        try:
            self.settings = team_settings.load()
        except team_settings.TeamConfigError as exc:
            self.error = str(exc)
            log.error("team settings refused: no export and no guard updates until they are fixed", error=self.error)
            self.d.publish_internal("hookd.team.config_invalid", {"error": self.error})
        state_dir = state_home()
        record = record_path(state_dir)
        s = self.settings
        if (s is not None and s.guards) or (s is None and self.error and os.path.exists(record)):
            # A broken settings file does not lift the guards already received.
            self.guards = ManagedGuards(self.d, record, s.bucket if s is not None else None)
            self.guards.load()
        if s is None:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # not serving
        if self.guards is not None and s.guards:
            from hookd.team.guards import GuardWatch
            from hookd.team.link import Link

            self.link = Link(s, name=f"hookd {s.host}/{s.user}")

            self.watch = GuardWatch(self.guards, self.link)
            self._spawn(self.watch.run(), "watching the team's guards")
        if s.export or s.otel is not None:
            from hookd.team.exportsup import ExportSupervisor

            settings = self.d.settings
            if not settings.journal:
                self.error = "export needs the journal, and it is off"
                log.error(self.error)
                return
            path = settings.journal_path or journal_files.default_path()
            newest = lambda: self.d.bus.seq  # noqa: E731 - read by the supervisors when they start an exporter
            if s.export:
                self.exporter = ExportSupervisor(s, path, state_dir, newest, self.d.publish_internal)
                self._spawn(self.exporter.run(), "supervising the export to the team's stream")
            if s.otel is not None:
                self.otel = ExportSupervisor(s, path, state_dir, newest, self.d.publish_internal, what="otel")
                self._spawn(self.otel.run(), "supervising the OpenTelemetry export")

    def _spawn(self, work: Coroutine[Any, Any, Any], what: str) -> None:
        # Not the daemon's background work: these run for the daemon's lifetime and must not hold
        # a stop's drain; they are cancelled by stop().
        task = asyncio.ensure_future(work)
        task.add_done_callback(lambda t: _ended(t, what))
        self._tasks.append(task)

    def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._tasks.clear()
        for supervisor in (self.exporter, self.otel):
            if supervisor is not None:
                supervisor.stop()
        if self.link is not None:
            link, self.link = self.link, None
            with contextlib.suppress(RuntimeError):
                self.d.background(link.close(), "closing the team connection")

    # ------------------------------------------------------------------ queries

    def info(self) -> m.TeamInfo | None:
        if self.settings is None and not self.error and self.guards is None:
            return None
        guards = None
        if self.guards is not None:
            g = self.guards
            watch = self.watch
            guards = m.GuardsInfo(
                bucket=g.bucket or "",
                revision=g.revision,
                hooks=g.hook_count(),
                keys={k: a.revision for k, a in sorted(g.accepted.items())},
                state=watch.state if watch is not None else "record only",
                rejected={k: "; ".join(p) for k, (_, p) in sorted(g.rejected.items())},
                error=(watch.error if watch is not None else "") or g.error or (self.link.error if self.link and watch else ""),
            )
        return m.TeamInfo(
            servers=list(self.settings.servers) if self.settings else [],
            error=self.error,
            export=self.exporter.info() if self.exporter is not None else None,
            guards=guards,
        )

    def managed_names(self) -> set[str]:
        return self.guards.names() if self.guards is not None else set()


def _ended(task: asyncio.Task[Any], what: str) -> None:
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("team work ended", work=what, error=f"{type(exc).__name__}: {exc}", exc_info=exc)


def is_managed(scope: str) -> bool:
    return scope in MANAGED_SCOPES
