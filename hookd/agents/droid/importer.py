"""`hookd import droid SETTINGS.json`: Factory Droid's hooks, in Claude Code's format, through the one importer.

Droid's hooks are Claude Code's (same layout, input, exit codes and JSON), so they import with Claude
Code's table (hookd/agents/importer.py) under Droid's names: each command hook becomes a hookd command
hook with ``format: claude-code`` on the point Droid's dialect maps its event to, its decision hooks one
group ``droid`` combined strictest; hookd's own hooks in the file (the shim for Droid, `hookd bridge droid`)
are not imported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.agents import import_source, importer
from hookd.agents.droid import install, protocol

RULES = importer.CLAUDE_CODE._replace(
    dialect=protocol.DIALECT,
    title="Factory Droid",
    prefix="droid",
    group="droid",
    matcher_fields=protocol.MATCHER_FIELDS,
    ours=install.is_ours,
)


def convert(settings: Mapping[str, Any], source: str) -> importer.Imported:
    return importer.convert_with(RULES, settings, source)


SOURCE = import_source.settings_source(
    "# format: claude-code runs each command as Factory Droid would (it kept Claude Code's format); decisions combine strictest.",
    lambda settings, source, _ask: convert(settings, source),
)
