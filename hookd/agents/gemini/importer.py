"""Turn the hooks in a Gemini CLI or Qwen Code settings file into hookd YAML hooks.

Gemini CLI: each command hook becomes a hookd command hook running ``hookd bridge run-hook gemini
--event EVENT -- bash -c COMMAND`` (adapter.py gives it Gemini CLI's input, environment and answer
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
import shutil
from collections.abc import Mapping
from typing import Any

from hookd.agents import importer as claude_importer
from hookd.agents import settings_file
from hookd.agents.gemini import install, protocol
from hookd.core import points

GROUP = "gemini"
DEFAULT_TIMEOUT_MS = 60_000  # Gemini CLI's default hook timeout
MAX_TIMEOUT = claude_importer.MAX_TIMEOUT
QWEN_DIR = "QWEN_PROJECT_DIR"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"([a-z])([A-Z])", r"\1-\2", text).lower()).strip("-")


def point_for(event: str) -> tuple[str, str]:
    point, decides = protocol.ROUTES.get(event, (protocol.UNMAPPED_PREFIX + event, False))
    kind = "decision" if decides and points.lookup(point).kind == "decision" else "observer"
    return point, kind


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
    result = claude_importer.Imported()
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        result.notes.append(f"{source} has no 'hooks' object; nothing to import")
        return result
    argv0 = shlex.split(hookd or settings_file.default_hookd())
    shell = shutil.which("bash") or "/bin/sh"
    counts: dict[str, int] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            result.notes.append(f"{event}: not a list of hook definitions; skipped")
            continue
        point, kind = point_for(event)
        for gi, group in enumerate(groups):
            if not isinstance(group, dict) or install.is_gemini_ours(group):
                continue  # the bridge itself is not a hook to import
            matcher = group.get("matcher")
            matcher = matcher.strip() if isinstance(matcher, str) and matcher.strip() not in ("", "*") else None
            for hi, handler in enumerate(group.get("hooks") or []):
                if not isinstance(handler, dict) or handler.get("type") != "command" or not isinstance(handler.get("command"), str):
                    htype = handler.get("type") if isinstance(handler, dict) else type(handler).__name__
                    result.notes.append(f"{event}: a {htype!r} hook was not imported and stays in {source}; Gemini CLI runs it")
                    continue
                counts[event] = counts.get(event, 0) + 1
                name = handler.get("name") if isinstance(handler.get("name"), str) else None
                hook_name = f"gemini-{_slug(event)}-{counts[event]}"
                described = event + (f" matcher {matcher!r}" if matcher else "") + (f" ({name})" if name else "")
                hook: dict[str, Any] = {
                    "name": hook_name,
                    "description": f"imported from {source}: {described}: {handler['command']}",
                    "point": point,
                    "type": kind,
                    "command": argv0[0],
                    "args": [*argv0[1:], "bridge", "run-hook", "gemini", "--event", event, "--", shell, "-c", handler["command"]],
                }
                if kind == "decision":
                    hook["group"], hook["combine"] = GROUP, "strictest"
                match = match_for(event, matcher) if matcher else {}
                if match:
                    hook["match"] = match
                timeout = handler.get("timeout")
                ms = timeout if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0 else DEFAULT_TIMEOUT_MS
                hook["timeout"] = min(max(1, math.ceil(ms / 1000)), MAX_TIMEOUT)
                if isinstance(handler.get("env"), dict):
                    hook["env"] = {str(k): str(v) for k, v in handler["env"].items()}
                hook["enabled"] = True
                if kind == "observer" and protocol.ROUTES.get(event, ("", False))[1]:
                    result.notes.append(f"{hook_name}: {point} is an observer point in hookd's catalog, so this {event} hook cannot block")
                result.hooks.append(hook)
                result.taken.append((event, gi, hi))
    return result


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
    result = claude_importer.convert(qwen_settings(settings), source)
    for hook in result.hooks:
        hook["name"] = "qwen-" + hook["name"].removeprefix("claude-")
        if hook.get("group") == claude_importer.GROUP:
            hook["group"] = "qwen"
    result.notes = [n.replace("Claude Code runs it", "Qwen Code runs it") for n in result.notes]
    return result


def convert_for(agent: str, settings: Mapping[str, Any], source: str) -> tuple[claude_importer.Imported, str]:
    """The imported hooks of ``agent``'s settings, and a comment line saying how they run."""
    if agent == "gemini":
        how = "# each hook runs through `hookd bridge run-hook gemini` (Gemini CLI's input and answers); decisions combine strictest."
        return convert_gemini(settings, source), how
    how = "# format: claude-code runs each command as Qwen Code would (it kept Claude Code's format); decision hooks combine strictest."
    return convert_qwen(settings, source), how
