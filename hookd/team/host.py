"""What the team features use of the daemon that runs them: its parts, named, not the whole daemon."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from hookd_client import messages as m

from hookd.core.hooks import Hook
from hookd.core.registry import Registry
from hookd.core.settings import Settings
from hookd.events.bus import Bus


class TeamHost(Protocol):
    """The daemon, as the team's export and organisation guards see it."""

    settings: Settings
    registry: Registry
    bus: Bus

    def background(self, work: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]: ...

    def publish_internal(self, kind: str, data: dict[str, Any]) -> None: ...

    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str, trust_key: str = "", sha: str = "") -> Hook: ...

    def hooks_removed(self, removed: list[Hook], reloaded: list[Hook] | None = None) -> None: ...
