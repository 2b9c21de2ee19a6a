"""Qwen Code's installs: its user and project settings files, in Claude Code's layout."""

from __future__ import annotations

from hookd.agents import settings_file, settings_installed
from hookd.agents.gemini import install

READER = settings_installed.Reader("qwen", install.QWEN_SCOPES, settings_file.is_ours, install.QWEN_INSTALLED)
