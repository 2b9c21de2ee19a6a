"""Turn the hooks in an agent's settings file into hookd YAML hooks: one importer for every agent.

Claude Code, Codex, Qwen Code, Factory Droid and Gemini CLI keep their hooks in the same layout
(``hooks.EVENT`` -> matcher groups -> handlers), so one walk over that layout serves them all; what
differs is data, an agent's :class:`Rules`: its dialect (which event goes to which hookd point, and
which events decide), which field each event's ``matcher`` filters, how to recognise the bridge's
own hooks, and how one handler becomes one hookd hook (``hook``). Each agent's importer module is
that table (codex/importer.py, gemini/importer.py, droid/importer.py); this module holds Claude
Code's, which Qwen Code and Factory Droid reuse under their own names.

Claude Code's rules: each command hook becomes one hookd command hook with ``format: claude-code``:
the daemon runs the hook's own command, with Claude Code's input, exit codes, JSON, working
directory, environment and timeouts (hookd/runners/claude.py), on the point the bridge maps its
event to. The decision hooks of one file form one group combined ``strictest``, so that, as in
Claude Code, every matching hook runs at once and the most restrictive answer wins. The settings
``matcher`` becomes ``match`` on the payload field it filters (Claude Code's rule: exact names for
plain lists, a regular expression search otherwise); a tool rule in ``if`` (``Bash(git *)``) becomes
a ``match`` on the tool's input.
"""

from __future__ import annotations

import fnmatch
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hookd.agents.claude_code.protocol import DIALECT, MATCHER_FIELDS
from hookd.agents.dialect import Dialect, camel
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


class Handler(NamedTuple):
    """One command handler of the settings file, where it stands and what it becomes."""

    name: str  # the hookd hook's name
    event: str
    point: str
    kind: str  # "decision" or "observer": the point's kind, where the agent lets a hook decide the event
    matcher: str | None  # the group's matcher; None: every call
    handler: Mapping[str, Any]
    source: str
    shell: str
    plugin_root: str | None
    notes: list[str]


class Rules(NamedTuple):
    """How one agent's settings hooks become hookd hooks: its table for the one importer."""

    dialect: Dialect  # routes (event -> point, decides) and the custom prefix of an unmapped event
    title: str  # the agent, as notes name it ("Claude Code runs it")
    prefix: str  # hook names: PREFIX-EVENT-N
    group: str  # the decision hooks' group, combined strictest
    matcher_fields: Mapping[str, str]  # event -> the input field its matcher filters
    ours: Callable[[Any], bool]  # a matcher group the bridge installed: not a hook to import
    hook: Callable[[Rules, Handler], dict[str, Any]]  # one handler as a hookd hook
    skip: frozenset[str] = frozenset()  # keys of ``hooks`` that are not events
    plugin_root: bool = True  # handlers using ${CLAUDE_PLUGIN_ROOT} need a known plugin root
    strip_matcher: bool = False
    # How notes name the file's parts.
    no_hooks: str = "'hooks' object"
    groups_word: str = "matcher groups"
    handler_word: str = "handler"
    cannot_block: str = "can observe but not block"


def point_for(event: str, d: Dialect = DIALECT) -> tuple[str, str]:
    """The hookd point and hook type an imported hook of ``event`` gets, from the agent's dialect."""
    point, decides = d.routes.get(event, (d.unmapped_prefix + event, False))
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
    """The hookd hooks for every command hook in a Claude Code ``settings``; other handler types are listed in notes.

    ``plugin_root``: the plugin directory when ``settings`` is a plugin's hooks/hooks.json; its hooks
    get ``CLAUDE_PLUGIN_ROOT`` as Claude Code gives it. ``hookd_command`` is no longer used (hooks
    run without a wrapper) and is kept for callers of the earlier signature."""
    del hookd_command
    return convert_with(CLAUDE_CODE, settings, source, plugin_root)


def convert_with(rules: Rules, settings: Mapping[str, Any], source: str, plugin_root: str | None = None) -> Imported:
    """The hookd hooks for every command hook in ``settings``, an agent's file read with its ``rules``."""
    result = Imported()
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        result.notes.append(f"{source} has no {rules.no_hooks}; nothing to import")
        return result
    counts: dict[str, int] = {}
    shell = shell_words()
    for event, groups in hooks.items():
        if event in rules.skip:
            continue
        if not isinstance(groups, list):
            result.notes.append(f"{event}: not a list of {rules.groups_word}; skipped")
            continue
        point, kind = point_for(event, rules.dialect)
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or rules.ours(group):
                continue  # the bridge itself is not a hook to import
            matcher = group.get("matcher")
            if rules.strip_matcher and isinstance(matcher, str):
                matcher = matcher.strip()
            matcher = matcher if isinstance(matcher, str) and matcher not in ("", "*") else None
            for hi, handler in enumerate(group.get("hooks") or []):
                if not isinstance(handler, dict) or handler.get("type") != "command" or not isinstance(handler.get("command"), str):
                    htype = handler.get("type") if isinstance(handler, dict) else type(handler).__name__
                    result.notes.append(
                        f"{event}: a {htype!r} {rules.handler_word} was not imported and stays in {source}; {rules.title} runs it"
                    )
                    continue
                if rules.plugin_root and plugin_root is None and _uses_plugin_root(handler):
                    # Run without it, the hook would fail (a Python exit 2 on the missing script would
                    # even block every call): it stays where the agent runs it with the right root.
                    result.notes.append(
                        f"{event}: {handler['command']!r} uses ${{{PLUGIN_ROOT}}} and no plugin root is known, so it was "
                        f"not imported and stays in {source}; pass --plugin-root DIR to import it"
                    )
                    continue
                counts[event] = counts.get(event, 0) + 1
                name = f"{rules.prefix}-{slug(event)}-{counts[event]}"
                found = Handler(name, event, point, kind, matcher, handler, source, shell, plugin_root, result.notes)
                result.hooks.append(rules.hook(rules, found))
                result.taken.append((event, gi, hi))
                if kind == "observer" and rules.dialect.routes.get(event, ("", False))[1]:
                    observer = f"{point} is an observer point in hookd's catalog"
                    result.notes.append(f"{name}: {observer}, so this {event} hook {rules.cannot_block}")
    return result


def claude_hook(rules: Rules, h: Handler) -> dict[str, Any]:
    """A handler in Claude Code's format: its command run by hookd with Claude Code's rules (``format: claude-code``)."""
    handler = h.handler
    command: str = handler["command"]
    args = handler.get("args")
    observer = h.kind == "observer" or bool(handler.get("async"))
    described = f"{h.event}" + (f" matcher {h.matcher!r}" if h.matcher else "")
    hook: dict[str, Any] = {
        "name": h.name,
        "description": f"imported from {h.source}: {described}: {command}",
        "point": h.point,
        "type": "observer" if observer else "decision",
        "format": "claude-code",
    }
    if isinstance(args, list):
        hook["command"], hook["args"] = command, [str(a) for a in args]
    else:
        hook["command"], hook["args"] = h.shell, ["-c", command]
    if not observer:
        hook["group"], hook["combine"] = rules.group, "strictest"
    match: dict[str, str] = {}
    field_name = rules.matcher_fields.get(h.event)
    if h.matcher is not None and field_name:
        match[camel(field_name)] = match_pattern(h.matcher)
    condition = handler.get("if")
    if isinstance(condition, str) and condition.strip():
        translated = rule_match(condition) if rules.matcher_fields.get(h.event) == "tool_name" else None
        if translated is None:
            dropped = f"the 'if' condition {condition!r} has no hookd equivalent and was dropped"
            h.notes.append(f"{h.name}: {dropped}; the hook runs on every match")
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
        hook["timeout"] = SHORT_TIMEOUTS.get(h.event, DEFAULT_TIMEOUT)
    if h.plugin_root and _uses_plugin_root(handler):
        hook["env"] = {PLUGIN_ROOT: h.plugin_root}
    hook["enabled"] = True
    return hook


CLAUDE_CODE = Rules(DIALECT, "Claude Code", "claude", GROUP, MATCHER_FIELDS, is_ours, claude_hook)
