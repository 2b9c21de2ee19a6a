"""`hookd import claude-code SETTINGS.json`: Claude Code's row for the one import command (Claude Code's table
itself, which Qwen Code, Factory Droid and Codex reuse, is hookd/agents/importer.py's)."""

from __future__ import annotations

from hookd.agents import import_source, importer

SOURCE = import_source.settings_source(
    "# format: claude-code runs each command as Claude Code would; the decision hooks combine strictest, as in Claude Code.",
    lambda settings, source, ask: importer.convert(settings, source, plugin_root=ask.plugin_root),
)
