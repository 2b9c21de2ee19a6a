"""Qwen Code's installs: its user and project settings files, in Claude Code's layout."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import settings_file, settings_installed
from hookd.agents.gemini import install
from hookd.agents.registry import Hook, Install

AGENT = "qwen"


def locations(cwd: str) -> list[str]:
    return [install.path_for(AGENT, "user"), os.path.join(cwd, install.QWEN_SCOPES["project"])]


def inspect(path: str) -> Install:
    return settings_installed.inspect(AGENT, path, settings_file.is_ours, install.QWEN_INSTALLED)


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    return settings_installed.hooks(AGENT, "PreToolUse", path, env, settings_file.is_ours)


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return settings_installed.settings_env([path])


def blocked(answer: Mapping[str, Any]) -> bool:
    return settings_installed.permission_denied(answer)
