"""Turn the hooks in a Claude Code settings file (or a plugin's hooks/hooks.json) into hookd YAML hooks.

Each command hook becomes one hookd command hook with ``format: claude-code``: the daemon runs the
hook's own command, with Claude Code's input, exit codes, JSON, working directory, environment and
timeouts (hookd/runners/claude.py), on the point the bridge maps its event to. The decision hooks of
one file form one group combined ``strictest``, so that, as in Claude Code, every matching hook runs
at once and the most restrictive answer wins. The settings ``matcher`` becomes ``match`` on the
payload field it filters (Claude Code's rule: exact names for plain lists, a regular expression
search otherwise); a tool rule in ``if`` (``Bash(git *)``) becomes a ``match`` on the tool's input.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.agents.claude_code.protocol import MATCHER_FIELDS, ROUTES, UNMAPPED_PREFIX, camel
from hookd.agents.settings_file import is_ours
from hookd.core import points

MAX_TIMEOUT = 3600  # HookSpec's limit
DEFAULT_TIMEOUT = 600  # Claude Code's default for a command hook
# Events whose command hooks Claude Code gives a shorter default.
SHORT_TIMEOUTS = {"UserPromptSubmit": 30, "PreModelSwitch": 30, "PostModelSwitch": 30, "MessageDisplay": 10}
GROUP = "claude-code"
PLUGIN_ROOT = "CLAUDE_PLUGIN_ROOT"
_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")
_RULE = re.compile(r"^\s*([A-Za-z0-9_.*-]+)\s*(?:\((.*)\))?\s*$", re.S)
# Which tool input field a permission rule's pattern applies to.
_RULE_FIELDS = {"Bash": "args.command", "Read": "args.file_path", "Edit": "args.file_path", "Write": "args.file_path"}


@dataclass
class Imported:
    hooks: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (event, index of the matcher group, index of the handler) of every handler imported, so that
    # the settings file can be rewritten without them.
    taken: list[tuple[str, int, int]] = field(default_factory=list)


def point_for(event: str) -> tuple[str, str]:
    """The hookd point and hook type an imported hook of ``event`` gets."""
    point, decides = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    kind = "decision" if decides and points.lookup(point).kind == "decision" else "observer"
    return point, kind


def match_pattern(matcher: str) -> str:
    """A regular expression with Claude Code's meaning: exact names for plain lists, an unanchored search otherwise."""
    if _EXACT.fullmatch(matcher):
        names = [p.strip() for p in re.split(r"[|,]", matcher) if p.strip()]
        return "^(?:" + "|".join(re.escape(n) for n in names) + ")$"
    return matcher


def rule_match(rule: str) -> dict[str, str] | None:
    """``match`` entries for a permission rule such as ``Bash(git *)`` or ``Edit(*.py)``; None when it has no equivalent."""
    m = _RULE.match(rule)
    if m is None:
        return None
    tool, pattern = m.group(1), m.group(2)
    out = {"toolName": f"^{re.escape(tool)}$" if tool.isidentifier() else "^" + fnmatch.translate(tool)}
    if pattern is None or pattern.strip() in ("", "*"):
        return out
    where = _RULE_FIELDS.get(tool)
    if where is None:
        return None
    pattern = pattern.strip()
    if tool == "Bash" and pattern.endswith(":*"):
        pattern = pattern[:-2] + "*"  # the legacy prefix form, `npm:*`
    out[where] = "^" + fnmatch.translate(pattern)
    return out


def _uses_plugin_root(handler: Mapping[str, Any]) -> bool:
    args = handler.get("args")
    return PLUGIN_ROOT in str(handler.get("command", "")) or any(PLUGIN_ROOT in str(a) for a in (args if isinstance(args, list) else ()))


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"([a-z])([A-Z])", r"\1-\2", text).lower()).strip("-")


def shell_words() -> str:
    # Claude Code runs a command hook's `command` with bash (its `shell` setting's default).
    return shutil.which("bash") or "/bin/sh"


def convert(settings: Mapping[str, Any], source: str, hookd_command: list[str] | None = None, plugin_root: str | None = None) -> Imported:
    """The hookd hooks for every command hook in ``settings``; other handler types are listed in notes.

    ``plugin_root``: the plugin directory when ``settings`` is a plugin's hooks/hooks.json; its hooks
    get ``CLAUDE_PLUGIN_ROOT`` as Claude Code gives it. ``hookd_command`` is no longer used (hooks
    run without a wrapper) and is kept for callers of the earlier signature."""
    del hookd_command
    result = Imported()
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        result.notes.append(f"{source} has no 'hooks' object; nothing to import")
        return result
    counts: dict[str, int] = {}
    shell = shell_words()
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            result.notes.append(f"{event}: not a list of matcher groups; skipped")
            continue
        point, kind = point_for(event)
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or is_ours(group):
                continue  # the bridge itself is not a hook to import
            matcher = group.get("matcher")
            matcher = matcher if isinstance(matcher, str) and matcher not in ("", "*") else None
            for hi, handler in enumerate(group.get("hooks") or []):
                if not isinstance(handler, dict) or handler.get("type") != "command" or not isinstance(handler.get("command"), str):
                    htype = handler.get("type") if isinstance(handler, dict) else type(handler).__name__
                    result.notes.append(f"{event}: a {htype!r} handler was not imported and stays in {source}; Claude Code runs it")
                    continue
                if plugin_root is None and _uses_plugin_root(handler):
                    # Run without it, the hook would fail (a Python exit 2 on the missing script would
                    # even block every call): it stays where Claude Code runs it with the right root.
                    result.notes.append(
                        f"{event}: {handler['command']!r} uses ${{{PLUGIN_ROOT}}} and no plugin root is known, so it was "
                        f"not imported and stays in {source}; pass --plugin-root DIR to import it"
                    )
                    continue
                counts[event] = counts.get(event, 0) + 1
                name = f"claude-{slug(event)}-{counts[event]}"
                hook = _hook(name, event, point, kind, matcher, handler, source, shell, plugin_root, result.notes)
                result.hooks.append(hook)
                result.taken.append((event, gi, hi))
    return result


def _hook(
    name: str,
    event: str,
    point: str,
    kind: str,
    matcher: str | None,
    handler: Mapping[str, Any],
    source: str,
    shell: str,
    plugin_root: str | None,
    notes: list[str],
) -> dict[str, Any]:
    command: str = handler["command"]
    args = handler.get("args")
    observer = kind == "observer" or bool(handler.get("async"))
    described = f"{event}" + (f" matcher {matcher!r}" if matcher else "")
    hook: dict[str, Any] = {
        "name": name,
        "description": f"imported from {source}: {described}: {command}",
        "point": point,
        "type": "observer" if observer else "decision",
        "format": "claude-code",
    }
    if isinstance(args, list):
        hook["command"], hook["args"] = command, [str(a) for a in args]
    else:
        hook["command"], hook["args"] = shell, ["-c", command]
    if not observer:
        hook["group"], hook["combine"] = GROUP, "strictest"
    match: dict[str, str] = {}
    field_name = MATCHER_FIELDS.get(event)
    if matcher is not None and field_name:
        match[camel(field_name)] = match_pattern(matcher)
    condition = handler.get("if")
    if isinstance(condition, str) and condition.strip():
        translated = rule_match(condition) if event in MATCHER_FIELDS and MATCHER_FIELDS[event] == "tool_name" else None
        if translated is None:
            notes.append(f"{name}: the 'if' condition {condition!r} has no hookd equivalent and was dropped; the hook runs on every match")
        else:
            tool = translated.pop("toolName")
            # Both the matcher and the rule name tools: both must hold.
            match["toolName"] = f"(?={match['toolName']}){tool}" if "toolName" in match else tool
            match.update(translated)
    if match:
        hook["match"] = match
    timeout = handler.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0:
        hook["timeout"] = min(int(timeout), MAX_TIMEOUT) if float(timeout).is_integer() else min(float(timeout), float(MAX_TIMEOUT))
    else:
        hook["timeout"] = SHORT_TIMEOUTS.get(event, DEFAULT_TIMEOUT)
    if plugin_root and _uses_plugin_root(handler):
        hook["env"] = {PLUGIN_ROOT: plugin_root}
    hook["enabled"] = True
    if kind == "observer" and ROUTES.get(event, ("", False))[1]:
        notes.append(f"{name}: {point} is an observer point in hookd's catalog, so this {event} hook can observe but not block")
    return hook
