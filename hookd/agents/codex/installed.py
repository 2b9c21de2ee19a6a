"""Codex's installs: the hooks in its user and project config.toml."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from typing import Any

from hookd.agents import safe_write, settings_installed
from hookd.agents.codex import install
from hookd.agents.registry import Hook, Install

AGENT = "codex"


def locations(cwd: str) -> list[str]:
    return [install.config_path("user"), install.config_path("project", cwd=cwd)]


def inspect(path: str) -> Install:
    try:
        text = (safe_write.read(path) or b"").decode("utf-8")
        found = install.find(text)
    except (OSError, UnicodeDecodeError, install.InstallError) as exc:
        return Install(AGENT, path, 0, (str(exc),))
    return Install(AGENT, path, 0 if found is None else install.hooks_in(text))


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    """The bridge's PreToolUse commands in config.toml."""
    try:
        text = (safe_write.read(path) or b"").decode("utf-8")
        doc = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    found = []
    for group in doc.get("hooks", {}).get("PreToolUse", []):
        for hook in group.get("hooks", []) if isinstance(group, dict) else []:
            command = hook.get("command") if isinstance(hook, dict) else None
            if isinstance(command, str) and install.is_ours_command(command):
                found.append(Hook(AGENT, path, "command", command, fail_closed="--fail-closed" in command))
    return found


def untrusted(path: str) -> tuple[int, list[str]]:
    """(how many of hookd's hooks ``path`` holds, those Codex has not trusted): Codex runs no hook it has not
    trusted, and every hook of hookd's in config.toml needs its trusted hash. Raises OSError, or ValueError naming
    why the file cannot be read."""
    try:
        text = (safe_write.read(path) or b"").decode("utf-8")
        keys = install.state_keys(text, path)
        states = tomllib.loads(text).get("hooks", {}).get("state", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, install.InstallError) as exc:
        raise ValueError(str(exc)) from None
    # A hook's key names its file; Codex may have filed it under the path or the path with links resolved.
    trusted: dict[str, bool] = {}
    for key in keys:
        ok = isinstance(states.get(key), dict) and bool(states[key].get("trusted_hash"))
        which = ":".join(key.rsplit(":", 3)[1:])
        trusted[which] = trusted.get(which, False) or ok
    return len(trusted), sorted(k for k, ok in trusted.items() if not ok)


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    return settings_installed.permission_denied(answer)
