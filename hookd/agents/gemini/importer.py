"""Turn the hooks in a Gemini CLI or Qwen Code settings file into hookd YAML hooks: their tables for the one
importer (hookd/agents/importer.py).

Gemini CLI: each command hook becomes a hookd command hook running ``hookd bridge run-hook gemini --event
EVENT -- bash -c COMMAND`` (hookd/agents/adapter.py gives it Gemini CLI's input, environment and answer
rules) on the point the bridge maps its event to; its timeout comes from milliseconds, its matcher
becomes ``match`` (a regular expression searched in the tool name, an exact trigger elsewhere).
Qwen Code kept Claude Code's events and answers, so its hooks import as Claude Code's do
(``format: claude-code``), after its own differences: a command timeout of 1000 or more is in
milliseconds, and ``$QWEN_PROJECT_DIR`` is set from ``$CLAUDE_PROJECT_DIR``.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.agents import import_source, settings_file
from hookd.agents import importer as claude_importer
from hookd.agents.gemini import install, protocol

GROUP = "gemini"
DEFAULT_TIMEOUT_MS = 60_000  # Gemini CLI's default hook timeout
MAX_TIMEOUT = claude_importer.MAX_TIMEOUT
QWEN_DIR = "QWEN_PROJECT_DIR"


def point_for(event: str) -> tuple[str, str]:
    return claude_importer.point_for(event, protocol.DIALECT)


def match_for(event: str, matcher: str) -> dict[str, str]:
    """Gemini CLI's matcher rule as a hookd ``match``: tool events search a regular expression in the tool
    name (an invalid one is compared exactly); lifecycle events compare the trigger exactly."""
    field = protocol.MATCHER_FIELDS.get(event)
    if field is None:
        return {}
    name = "toolName" if field == "tool_name" else field
    if field == "tool_name":
        try:
            re.compile(matcher)
            return {name: matcher}
        except re.error:
            pass
    return {name: f"^{re.escape(matcher)}$"}


def convert_gemini(settings: Mapping[str, Any], source: str, hookd: str | None = None) -> claude_importer.Imported:
    """The hookd hooks for every command hook of a Gemini CLI ``settings``, each run through ``hookd``'s
    `bridge run-hook gemini` (default: this hookd)."""
    return claude_importer.convert_with(gemini_rules(hookd), settings, source)


def gemini_rules(hookd: str | None = None) -> claude_importer.Rules:
    """Gemini CLI's table for the one importer; its hooks run through ``hookd bridge run-hook gemini``."""
    argv0 = shlex.split(hookd or settings_file.default_hookd())

    def hook_of(rules: claude_importer.Rules, h: claude_importer.Handler) -> dict[str, Any]:
        handler = h.handler
        name = handler.get("name") if isinstance(handler.get("name"), str) else None
        described = h.event + (f" matcher {h.matcher!r}" if h.matcher else "") + (f" ({name})" if name else "")
        hook: dict[str, Any] = {
            "name": h.name,
            "description": f"imported from {h.source}: {described}: {handler['command']}",
            "point": h.point,
            "type": h.kind,
            "command": argv0[0],
            "args": [*argv0[1:], "bridge", "run-hook", "gemini", "--event", h.event, "--", h.shell, "-c", handler["command"]],
        }
        if h.kind == "decision":
            hook["group"], hook["combine"] = rules.group, "strictest"
        match = match_for(h.event, h.matcher) if h.matcher else {}
        if match:
            hook["match"] = match
        timeout = handler.get("timeout")
        ms = timeout if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0 else DEFAULT_TIMEOUT_MS
        hook["timeout"] = min(max(1, math.ceil(ms / 1000)), MAX_TIMEOUT)
        if isinstance(handler.get("env"), dict):
            hook["env"] = {str(k): str(v) for k, v in handler["env"].items()}
        hook["enabled"] = True
        if h.event in protocol.NOT_INSTALLED:
            h.notes.append(
                f"{h.name}: {protocol.NOT_INSTALLED[h.event]}, so `hookd bridge install gemini` leaves it out; install with "
                "--all-events for this hook to run"
            )
        return hook

    return claude_importer.Rules(
        protocol.DIALECT,
        "Gemini CLI",
        "gemini",
        GROUP,
        protocol.MATCHER_FIELDS,
        install.is_gemini_ours,
        hook_of,
        plugin_root=False,
        strip_matcher=True,
        groups_word="hook definitions",
        handler_word="hook",
        cannot_block="cannot block",
    )


def qwen_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Qwen Code's hooks in Claude Code's terms: millisecond timeouts in seconds, QWEN_PROJECT_DIR set."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return dict(settings)
    out: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            out[event] = groups
            continue
        out[event] = []
        for group in groups:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                out[event].append(group)
                continue
            handlers = []
            for h in group["hooks"]:
                if isinstance(h, dict) and h.get("type") == "command":
                    h = dict(h)
                    t = h.get("timeout")
                    if isinstance(t, int | float) and not isinstance(t, bool) and t >= install.QWEN_SECONDS_LIMIT:
                        h["timeout"] = math.ceil(t / 1000)
                    if isinstance(h.get("command"), str) and QWEN_DIR in h["command"]:
                        h["command"] = f'{QWEN_DIR}="${{{QWEN_DIR}:-$CLAUDE_PROJECT_DIR}}"; export {QWEN_DIR}; {h["command"]}'
                handlers.append(h)
            out[event].append({**group, "hooks": handlers})
    return {**settings, "hooks": out}


def convert_qwen(settings: Mapping[str, Any], source: str) -> claude_importer.Imported:
    return claude_importer.convert_with(QWEN, qwen_settings(settings), source)


# Qwen Code kept Claude Code's format: Claude Code's table under Qwen Code's names.
QWEN = claude_importer.CLAUDE_CODE._replace(title="Qwen Code", prefix="qwen", group="qwen")


GEMINI_SOURCE = import_source.settings_source(
    "# each hook runs through `hookd bridge run-hook gemini` (Gemini CLI's input and answers); decisions combine strictest.",
    lambda settings, source, _ask: convert_gemini(settings, source),
)
QWEN_SOURCE = import_source.settings_source(
    "# format: claude-code runs each command as Qwen Code would (it kept Claude Code's format); decision hooks combine strictest.",
    lambda settings, source, _ask: convert_qwen(settings, source),
)
