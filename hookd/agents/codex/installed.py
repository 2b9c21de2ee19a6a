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


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    return settings_installed.permission_denied(answer)
