"""Factory Droid's installs: its user and project settings files, in Claude Code's layout."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import settings_installed
from hookd.agents.droid import install, protocol
from hookd.agents.registry import Hook, Install


def locations(cwd: str) -> list[str]:
    return [install.path_for("user"), os.path.join(cwd, install.SCOPES["project"])]


def inspect(path: str) -> Install:
    return settings_installed.inspect(protocol.AGENT, path, install.is_ours, protocol.INSTALLED_EVENTS)


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    return settings_installed.hooks(protocol.AGENT, "PreToolUse", path, env, install.is_ours)


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return settings_installed.settings_env([path])


def blocked(answer: Mapping[str, Any]) -> bool:
    return settings_installed.permission_denied(answer)
