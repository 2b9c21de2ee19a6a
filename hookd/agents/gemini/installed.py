"""Gemini CLI's installs: its user and project settings files."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import settings_installed
from hookd.agents.gemini import install, protocol
from hookd.agents.registry import Hook, Install

AGENT = "gemini"


def locations(cwd: str) -> list[str]:
    return [install.path_for(AGENT, "user"), os.path.join(cwd, install.GEMINI_SCOPES["project"])]


def inspect(path: str) -> Install:
    return settings_installed.inspect(AGENT, path, install.is_gemini_ours, protocol.INSTALLED_EVENTS)


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    return settings_installed.hooks(AGENT, "BeforeTool", path, env, install.is_gemini_ours)


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return settings_installed.settings_env([path])


def blocked(answer: Mapping[str, Any]) -> bool:
    return answer.get("decision") in ("deny", "block")
