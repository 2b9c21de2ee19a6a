"""The installed Claude Code events follow a change of hooks at once (the registry says so), not at the
next look at the install record. Real registry, real settings file, real install record."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from hookd.bridges import installed
from hookd.bridges import settings_file as sf
from hookd.registry import Hook, Registry


def _hook(point: str) -> Hook:
    async def run(h: Hook, payload: dict[str, Any], ctx: Any) -> None:
        return None

    return Hook("post-check", point, "decision", "global", "", "/f/hooks.yaml", run)  # type: ignore[arg-type]


def _events(settings: Path) -> set[str]:
    doc = json.loads(settings.read_text())
    return {event for event, groups in doc.get("hooks", {}).items() if any(sf.is_ours(g) for g in groups)}


def test_a_hook_added_is_installed_without_waiting_for_the_next_poll(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(installed, "POLL", 3600.0)  # only the registry's word can make it happen in time
    state, settings = str(tmp_path / "state"), tmp_path / "settings.json"
    settings.write_text("{}\n")
    route = sf.Route(port=1, token="t", token_file=str(tmp_path / "token"), shim=None, fallback="hookd-bridge")
    sf.install(str(settings), route=route)
    installed.remember(state, str(settings), route, all_events=False)

    async def run() -> None:
        registry = Registry()
        sync = installed.Sync(registry, state)
        sync.start()
        try:
            await asyncio.sleep(0)  # the first step: only the events every session needs
            assert _events(settings) == set(sf.ALWAYS)
            registry.add([_hook("tool.execute.after")])
            deadline = time.monotonic() + 10
            while "PostToolUse" not in _events(settings) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert _events(settings) == set(sf.ALWAYS) | {"PostToolUse"}
        finally:
            sync.close()
        assert sync._registry_changed not in registry.on_change  # a closed sync is told nothing more

    asyncio.run(run())
