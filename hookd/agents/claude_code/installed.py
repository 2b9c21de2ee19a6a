"""Claude Code's installs: its user, project and local settings files."""

from __future__ import annotations

from hookd.agents import settings_file, settings_installed

# Claude Code merges every settings file's env, whichever holds the hook.
READER = settings_installed.Reader("claude-code", settings_file.SCOPES, settings_file.is_ours, settings_file.EVENTS, merged_env=True)
