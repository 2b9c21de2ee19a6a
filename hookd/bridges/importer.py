"""Turn the hooks in a Claude Code settings file into hookd YAML hooks.

Each command hook becomes one hookd command hook on the point the bridge maps
its event to. It runs through `hookd bridge run-hook claude-code`, which speaks
Claude Code's hook format to the original command, so the hook keeps working
unchanged. The settings `matcher` becomes `match` on the payload field it
filters (toolName for tool events), which skips other tools without starting
a process, and is also passed to run-hook, which applies Claude Code's exact matcher rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd import points

from .claude_code import MATCHER_FIELDS, ROUTES, UNMAPPED_PREFIX, camel
from .settings_file import is_ours

MAX_TIMEOUT = 3600.0  # HookSpec's limit
_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")


@dataclass
class Imported:
    hooks: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def point_for(event: str) -> tuple[str, str]:
    """The hookd point and hook type an imported hook of ``event`` gets."""
    point, decides = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    kind = "decision" if decides and points.lookup(point).kind == "decision" and not point.startswith(UNMAPPED_PREFIX) else "observer"
    return point, kind


def match_pattern(matcher: str) -> str:
    """A regular expression with Claude Code's meaning: exact names for plain lists, an unanchored search otherwise."""
    if _EXACT.fullmatch(matcher):
        names = [p.strip() for p in re.split(r"[|,]", matcher) if p.strip()]
        return "^(?:" + "|".join(re.escape(n) for n in names) + ")$"
    return matcher


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"([a-z])([A-Z])", r"\1-\2", text).lower()).strip("-")


def convert(settings: Mapping[str, Any], source: str, hookd_command: list[str]) -> Imported:
    """The hookd hooks for every command hook in ``settings``; other handler types are listed in notes."""
    result = Imported()
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        result.notes.append(f"{source} has no 'hooks' object; nothing to import")
        return result
    counts: dict[str, int] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            result.notes.append(f"{event}: not a list of matcher groups; skipped")
            continue
        point, kind = point_for(event)
        for group in groups:
            if not isinstance(group, dict) or is_ours(group):
                continue  # the bridge itself is not a hook to import
            matcher = group.get("matcher")
            matcher = matcher if isinstance(matcher, str) and matcher not in ("", "*") else None
            for handler in group.get("hooks") or []:
                if not isinstance(handler, dict) or handler.get("type") != "command" or not isinstance(handler.get("command"), str):
                    htype = handler.get("type") if isinstance(handler, dict) else type(handler).__name__
                    result.notes.append(f"{event}: a {htype!r} handler was not imported; only command hooks run under hookd")
                    continue
                counts[event] = counts.get(event, 0) + 1
                name = f"claude-{_slug(event)}-{counts[event]}"
                result.hooks.append(_hook(name, event, point, kind, matcher, handler, source, hookd_command, result.notes))
    return result


def _hook(
    name: str,
    event: str,
    point: str,
    kind: str,
    matcher: str | None,
    handler: Mapping[str, Any],
    source: str,
    hookd_command: list[str],
    notes: list[str],
) -> dict[str, Any]:
    command: str = handler["command"]
    args = handler.get("args")
    target = [command, *map(str, args)] if isinstance(args, list) else ["/bin/sh", "-c", command]
    run_hook = [*hookd_command[1:], "bridge", "run-hook", "claude-code"]
    if matcher is not None:
        run_hook += ["--matcher", matcher]
    described = f"{event}" + (f" matcher {matcher!r}" if matcher else "")
    hook: dict[str, Any] = {
        "name": name,
        "description": f"imported from {source}: {described}: {command}",
        "point": point,
        "type": "observer" if handler.get("async") else kind,
        "command": hookd_command[0],
        "args": [*run_hook, "--", *target],
    }
    field_name = MATCHER_FIELDS.get(event)
    if matcher is not None and field_name:
        hook["match"] = {camel(field_name): match_pattern(matcher)}
    timeout = handler.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        hook["timeout"] = min(float(timeout), MAX_TIMEOUT) if not float(timeout).is_integer() else min(int(timeout), int(MAX_TIMEOUT))
    hook["enabled"] = True
    if "if" in handler:
        notes.append(f"{name}: the 'if' condition {handler['if']!r} has no hookd equivalent and was dropped; the hook runs on every match")
    if kind == "observer" and ROUTES.get(event, ("", False))[1]:
        notes.append(f"{name}: {point} is an observer point in hookd's catalog, so this {event} hook can observe but not block")
    return hook
