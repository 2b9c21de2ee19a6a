"""Factory Droid's installs: its user and project settings files, in Claude Code's layout."""

from __future__ import annotations

from hookd.agents import settings_installed
from hookd.agents.droid import install, protocol

READER = settings_installed.Reader(protocol.AGENT, install.SCOPES, install.is_ours, protocol.INSTALLED_EVENTS)
