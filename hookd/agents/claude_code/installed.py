"""Claude Code's installs: its user, project and local settings files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import settings_file, settings_installed
from hookd.agents.registry import Hook, Install

AGENT = "claude-code"


def locations(cwd: str) -> list[str]:
    return [settings_file.path_for("user"), *(os.path.join(cwd, settings_file.SCOPES[s]) for s in ("project", "local"))]


def inspect(path: str) -> Install:
    return settings_installed.inspect(AGENT, path, settings_file.is_ours, settings_file.EVENTS)


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    return settings_installed.hooks(AGENT, "PreToolUse", path, env, settings_file.is_ours)


def hook_env(cwd: str, path: str) -> dict[str, str]:
    # Claude Code merges every settings file's env, whichever holds the hook.
    return settings_installed.settings_env(locations(cwd))


def blocked(answer: Mapping[str, Any]) -> bool:
    return settings_installed.permission_denied(answer)
