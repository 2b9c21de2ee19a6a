"""Loading one plugin directory: read and judge its files, install, start its host, register its hooks.

Each directory loads on its own task: one directory's pip install or broken
host never delays another's. The steps, each checked against a forget (a
disposed project) so that nothing is registered and no host is left once the
scope is gone:

1. snapshot: read and hash every file that counts (off the event loop);
2. judge: no code -> no hooks; a project directory must be trusted as read;
3. placeholders: while it has no host, its decision hooks (the host's last
   answer, else a static scan) are registered with an :class:`Unloaded`
   runner, so a call names them under ``not_run`` (``not_loaded``, then
   ``plugin_failed`` if the load fails) instead of passing them over;
4. install its requirements.txt (a failure of the same file is remembered,
   see venv.py), write the private copy, start the host from it;
5. swap its hooks in one registry step and retire the previous host (stopped
   once the calls that leased it are over).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, Protocol

import structlog

from hookd.config import plugin_dirs as discovery
from hookd.config.plugin_trust import judging
from hookd.core import intake, points
from hookd.core.hooks import HookFailure
from hookd.core.registry import Hook
from hookd.plugins import snapshot, venv
from hookd.plugins.hosthandle import HostHandle, HostOwner, Unloaded
from hookd.plugins.state import DirState, ScopeState

if TYPE_CHECKING:
    from collections.abc import Callable

    from hookd.core.hooks import Verdict
    from hookd.core.registry import Registry

log = structlog.get_logger("hookd.plugins")


def decision_events(names: set[str] | list[str]) -> set[str]:
    out = set()
    for name in names:
        try:
            if points.lookup(name).kind == "decision":
                out.add(name)
        except points.UnknownPoint:
            continue
    return out


class LoadOwner(HostOwner, Protocol):
    """What loading a directory asks of the plugin manager (hookd/plugins/manager.py): what a host asks of
    it (the hosts it starts are its), the registry its hooks go into, the trust gate, the environment and
    timeout, and where happenings are reported."""

    registry: Registry
    environ: dict[str, str]
    hook_timeout: float
    trusted: Callable[[str], Verdict]  # a project plugin directory -> may it run

    def problem(self, state: ScopeState, directory: str, kind: str, message: str) -> None: ...

    def publish_fit(self, point: str, payload: dict[str, Any], project: str | None) -> None: ...

    def report(self, host: HostHandle, kind: str, point: str, handler: str, message: str) -> None: ...


class Loader:
    def __init__(self, manager: LoadOwner) -> None:
        self.m = manager

    # ------------------------------------------------------------ steps

    async def read(self, ds: DirState) -> snapshot.Snapshot | str:
        """The directory's snapshot, or why it cannot be read."""
        ds.fingerprint = discovery.fingerprint(ds.directory)
        try:
            return await asyncio.to_thread(snapshot.take, ds.directory)
        except snapshot.Unreadable as exc:
            return str(exc)

    def judge(self, state: ScopeState, ds: DirState, snap: snapshot.Snapshot | str) -> bool:
        """Whether the directory goes on to install and start; else its hooks and host are dropped (or failed)."""
        if isinstance(snap, str):
            self.fail(state, ds, "load", snap)
            return False
        self.report_unfit(state, ds, snap)
        ds.digests = snap.paths()
        if not snap.has_code:
            ds.trusted = True
            self.drop(state, ds)
            return False
        if state.scope == "global":
            ds.trusted = True
        else:
            with judging(ds.digests):
                verdict = self.m.trusted(ds.directory)
            ds.trusted = verdict.trusted
            if not verdict.trusted:
                message = f"project plugins in {ds.directory} do not run: {verdict.reason}"
                if not ds.warned_untrusted:
                    ds.warned_untrusted = True
                    self.m.problem(state, ds.directory, "untrusted", message)
                ds.events |= decision_events(snapshot.declared_events(snap))
                self.untrusted(state, ds, message)
                return False
            ds.warned_untrusted = False
        ds.events |= decision_events(snapshot.declared_events(snap))
        return True

    def hold(self, state: ScopeState, ds: DirState) -> None:
        """While the directory has no host, its guards are named as not loaded."""
        if ds.host is None:
            ds.failed = ""
            self.placeholders(state, ds, "not_loaded", f"the plugins of {ds.directory} are still loading")

    async def start(self, state: ScopeState, ds: DirState, snap: snapshot.Snapshot, retry: bool) -> None:
        environ = self.m.environ
        writing = asyncio.ensure_future(asyncio.to_thread(snapshot.materialize, snap, environ))
        try:
            copy = await asyncio.shield(writing)
        except asyncio.CancelledError:  # forgotten meanwhile: the copy still being written goes too
            writing.add_done_callback(_remove_copy)
            raise
        try:
            requirements = os.path.join(copy.files, discovery.REQUIREMENTS) if snap.requirements else None

            def progress(line: str) -> None:
                ds.stage, ds.progress = "installing", line

            ds.stage, ds.progress = "starting", ""
            try:
                python = await venv.ensure(
                    ds.directory, requirements, snap.requirements, environ, retry=retry, cwd=copy.cwd, progress=progress
                )
                ds.stage = "starting"
                host = HostHandle(ds.directory, state.scope, state.owner, python, self.m, copy)
                await host.start()
            finally:
                ds.stage = ""
        except venv.InstallFailed as exc:
            copy.remove()
            self.fail(state, ds, "install", f"installing {ds.directory}/requirements.txt failed: {exc}")
            return
        except HookFailure as exc:
            copy.remove()
            self.fail(state, ds, "host", f"the plugin host for {ds.directory} did not load: {exc}")
            return
        except BaseException:
            copy.remove()
            raise
        if state.closed:
            host.retire()
            return
        self.install(state, ds, host)

    async def load(self, state: ScopeState, ds: DirState, retry: bool, snap: snapshot.Snapshot | str | None = None) -> None:
        """Every step, for a directory that changed (or on an explicit reload, that failed)."""
        if snap is None:
            snap = await self.read(ds)
            if state.closed:
                return
            if not self.judge(state, ds, snap):
                return
            self.hold(state, ds)
        assert isinstance(snap, snapshot.Snapshot)
        await self.start(state, ds, snap, retry)

    # ------------------------------------------------------------ outcomes

    def hooks(self, host: HostHandle) -> list[Hook]:
        hooks = []
        base = os.path.basename(host.directory)
        for event in host.handlers:
            try:
                point = points.lookup(event)
            except points.UnknownPoint as exc:
                self.m.report(host, "load", event, ",".join(host.handlers[event]), str(exc))
                continue
            kind = "decision" if point.kind == "decision" else "observer"
            hooks.append(self._hook(host.directory, host.scope, host.owner, event, kind, host, base))
        return hooks

    def _hook(self, directory: str, scope: str, owner: str, event: str, kind: str, runner: Callable[..., Any], base: str) -> Hook:
        return Hook(
            name=f"{intake.safe_text(base)}:{event}",
            point=event,
            type=kind,  # type: ignore[arg-type]
            scope=scope,  # type: ignore[arg-type]
            owner=owner,
            source=directory,
            runner=runner,
            timeout=self.m.hook_timeout,
        )

    def install(self, state: ScopeState, ds: DirState, host: HostHandle) -> None:
        """Swap the directory's hooks for the new host's, in one step; the old host goes once unleased."""
        hooks = self.hooks(host)
        self.m.registry.replace_source(state.scope, state.owner, ds.directory, hooks)
        old, ds.host, ds.pending, ds.failed = ds.host, host, None, ""
        ds.events = {h.point for h in hooks if h.type == "decision"}
        if old is not None:
            old.retire()
        self.m.publish_fit(
            "hookd.plugin.loaded", {"directory": ds.directory, "scope": state.scope, "handlers": host.handlers}, state.project
        )
        log.info("plugins loaded", directory=ds.directory, scope=state.scope, events=sorted(host.handlers))

    def placeholders(self, state: ScopeState, ds: DirState, reason: str, message: str) -> None:
        if ds.pending is None:
            ds.pending = Unloaded(ds.directory)
        ds.pending.reason = reason  # type: ignore[assignment]
        ds.pending.message = message
        if state.closed:
            return
        base = os.path.basename(ds.directory)
        hooks = [self._hook(ds.directory, state.scope, state.owner, e, "decision", ds.pending, base) for e in sorted(ds.events)]
        self.m.registry.replace_source(state.scope, state.owner, ds.directory, hooks)

    def fail(self, state: ScopeState, ds: DirState, kind: str, message: str) -> None:
        """The load failed: a serving host stays; without one, its guards are named as failed."""
        self.m.problem(state, ds.directory, kind, message)
        ds.failed = message
        if ds.host is None:
            self.placeholders(state, ds, "plugin_failed", message)

    def untrusted(self, state: ScopeState, ds: DirState, message: str) -> None:
        """Not trusted: no host, and its guards are named as not run (untrusted) in every call they
        would have seen, so the user learns why a guard they expect is not in force."""
        old, ds.host, ds.failed = ds.host, None, ""
        self.placeholders(state, ds, "untrusted", message)
        if old is not None:
            old.retire()

    def drop(self, state: ScopeState, ds: DirState) -> None:
        """No hooks for this directory (no code, or not trusted), and no host."""
        old, ds.host, ds.pending, ds.failed = ds.host, None, None, ""
        if not state.closed and any(h.source == ds.directory for h in self.m.registry.layer(state.scope, state.owner)):
            self.m.registry.replace_source(state.scope, state.owner, ds.directory, [])
        if old is not None:
            old.retire()

    def report_unfit(self, state: ScopeState, ds: DirState, snap: snapshot.Snapshot) -> None:
        unfit = tuple(snap.unfit)
        if unfit and unfit != ds.unfit_reported:
            self.m.problem(state, ds.directory, "file", "left out (never loaded, never trusted): " + "; ".join(unfit))
        ds.unfit_reported = unfit


def _remove_copy(done: asyncio.Future[snapshot.Copy]) -> None:
    if not done.cancelled() and done.exception() is None:
        done.result().remove()
