"""Which Claude Code events the installed bridge listens to, kept in step with hookd's hooks.

Every hook event Claude Code sends costs the agent a round trip and the daemon a mapped call, so
`hookd bridge install` records the settings files it wrote (``claude-installs.json`` in the state
directory) and the daemon installs there only the events that have hooks in hookd (plus ``ALWAYS``).
When hooks change (a reload, the watcher, a session's hooks, a trust change), the daemon rewrites
those files within moments, before the next Claude Code session reads them.

Claude Code reads its hook settings once, when a session starts. Every installed hook therefore names
the set of events it was installed with (``?events=`` on the URL, ``--events`` for the shim), and the
daemon tells a session that started with an older set which hooks it cannot run (``stale``): a hook
added on an event the session does not call hookd for is named to the user, never silently missed.
Events stay all installed when hookd cannot tell which it needs: an observer on the catch-all point,
or a hook file that was never loaded (its hooks' points are unknown).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import structlog

from ..points import CATCH_ALL
from . import claude_code as cc
from . import settings_file as sf

if TYPE_CHECKING:
    from ..registry import Registry

log = structlog.get_logger("hookd.bridges.installed")
RECORD = "claude-installs.json"
# Seconds between looks at the install record, which `hookd bridge install` writes from another
# process; a change of hooks is followed at once (Registry.on_change). The event loop's timers
# stay far apart: a near one makes every wait of the loop reprogram the CPU's timer (bus.py).
POLL = 1.0
_ROUTE_FIELDS = ("port", "token", "token_file", "shim", "fallback", "timeout", "fail_closed")


def record_path(state: str) -> str:
    return os.path.join(state, RECORD)


def records(state: str) -> dict[str, dict[str, Any]]:
    """The recorded installs by settings path; an unreadable record is treated as none (and logged)."""
    try:
        with open(record_path(state), "rb") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("cannot read the recorded Claude Code installs; the installed events are left as they are", error=str(exc))
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, dict)} if isinstance(data, dict) else {}


def _write(state: str, data: dict[str, dict[str, Any]]) -> None:
    from ..httphooks.files import _write_private

    os.makedirs(state, mode=0o700, exist_ok=True)
    _write_private(record_path(state), json.dumps(data, indent=1, sort_keys=True).encode() + b"\n")


def remember(state: str, path: str, route: sf.Route, all_events: bool) -> None:
    """Record ``path`` as installed with ``route``; ``all_events`` keeps every event installed there."""
    data = records(state)
    data[os.path.abspath(path)] = {**{f: getattr(route, f) for f in _ROUTE_FIELDS}, "all_events": all_events}
    _write(state, data)


def forget(state: str, path: str) -> None:
    data = records(state)
    if data.pop(os.path.abspath(path), None) is not None:
        _write(state, data)


def route_of(entry: dict[str, Any], events: tuple[str, ...] | None) -> sf.Route | None:
    try:
        fields = {f: entry[f] for f in _ROUTE_FIELDS}
        route = sf.Route(**fields, events=None if entry.get("all_events") else events)
    except (KeyError, TypeError):
        return None
    ok = isinstance(route.port, int) and isinstance(route.token, str) and isinstance(route.token_file, str)
    return route if ok and isinstance(route.timeout, int) else None


def points_of(registry: Registry) -> frozenset[str]:
    return frozenset(hook.point for hook in registry.all_hooks())


def wanted(registry: Registry) -> tuple[str, ...] | None:
    """The events the installed bridge must call hookd for; None: all of them."""
    hooked = points_of(registry)
    if CATCH_ALL in hooked or registry.has_missing:
        return None
    return tuple(e for e in sf.EVENTS if e in sf.ALWAYS or point_of(e) in hooked)


def point_of(event: str) -> str:
    """The point a Claude Code event goes to, as ``claude_code.route`` maps it."""
    return cc.ROUTES.get(event, (cc.UNMAPPED_PREFIX + event, False))[0]


_stale_cache: dict[tuple[int, frozenset[str], str | None, str | None], str | None] = {}
_stale_generation = [0]  # the registry generation the cache holds answers for


def stale(registry: Registry, installed: frozenset[str], session: str | None, project: str | None) -> str | None:
    """One line for the user naming the hooks this session cannot run, or None when it runs them all."""
    key = (registry.generation, installed, session, project)
    if key in _stale_cache:
        return _stale_cache[key]
    if len(_stale_cache) > 4096 or _stale_generation[0] != registry.generation:
        _stale_cache.clear()
        _stale_generation[0] = registry.generation
    missed: dict[str, list[str]] = {}
    for event in sf.EVENTS:
        if event in installed:
            continue
        names = [h.name for h in registry.ordered(point_of(event), session, project)]
        if names:
            missed[event] = names
    line = None
    if missed:
        what = "; ".join(f"{event}: {', '.join(repr(n) for n in dict.fromkeys(names))}" for event, names in missed.items())
        line = (
            "hookd: this Claude Code session started before hookd had hooks on events it does not send to hookd "
            f"({what}); Claude Code reads its hook settings once, at start, so those hooks do not run in this "
            "session: start a new session to run them"
        )
    _stale_cache[key] = line
    return line


def resync(state: str, events: tuple[str, ...] | None, paths: Iterable[str] | None = None) -> None:
    """Write ``events`` into every recorded settings file that still holds the bridge. Never raises."""
    data = records(state)
    for path, entry in data.items():
        if paths is not None and path not in paths:
            continue
        route = route_of(entry, events)
        if route is None:
            log.warning("a recorded Claude Code install cannot be read; left as it is", settings=path)
            continue
        try:
            result = sf.resync(path, route)
        except (sf.SettingsError, OSError) as exc:
            log.warning("cannot update the installed Claude Code events", settings=path, error=str(exc))
            continue
        if result is not None:
            log.info("installed Claude Code events follow hookd's hooks", settings=path, events=len(route.installed()))


class Sync:
    """Keeps the recorded settings files in step with the registry, from the daemon's event loop."""

    def __init__(self, registry: Registry, state: str) -> None:
        self.registry = registry
        self.state = state
        self.task: asyncio.Task[None] | None = None
        self._seen: tuple[int, int] | None = None
        self._last: tuple[str, ...] | bool | None = False  # False: nothing written yet
        self._soon = False  # a step is due in this loop pass

    def start(self) -> None:
        self.registry.on_change.append(self._registry_changed)
        self.task = asyncio.ensure_future(self._run())

    def close(self) -> None:
        if self._registry_changed in self.registry.on_change:
            self.registry.on_change.remove(self._registry_changed)
        if self.task is not None:
            self.task.cancel()

    def _registry_changed(self) -> None:
        # Once per loop pass however many changes it made (a session attaching its hooks one by one).
        if not self._soon:
            self._soon = True
            asyncio.get_running_loop().call_soon(self._step_now)

    def _step_now(self) -> None:
        self._soon = False
        if self.task is not None and not self.task.done():
            self._safe_step()

    def _safe_step(self) -> None:
        try:
            self.step()
        except Exception:
            log.exception("keeping the installed Claude Code events in step failed; tried again at the next change")

    def _records_version(self) -> int:
        try:
            return os.stat(record_path(self.state)).st_mtime_ns
        except OSError:
            return 0

    def step(self) -> None:
        seen = (self.registry.generation, self._records_version())
        if seen == self._seen:
            return
        records_changed = self._seen is None or seen[1] != self._seen[1]
        self._seen = seen
        events = wanted(self.registry)
        if events != self._last or records_changed:
            self._last = events
            resync(self.state, events)

    async def _run(self) -> None:
        while True:
            self._safe_step()
            await asyncio.sleep(POLL)
