"""The hookd bridge in Gemini CLI's and Qwen Code's settings files, through settings_file's install.

Gemini CLI takes only command hooks (its `runtime` type is for extensions' code), so every
mapped event runs a command: the compiled shim (``--agent gemini``: an exec and one loopback request
to the daemon's ``/gemini/EVENT`` endpoint, answered in Gemini CLI's format), or `hookd bridge gemini`
(with ``--command``, ``--no-shim`` or no C compiler); its timeout is in milliseconds. Qwen Code takes Claude
Code's events and output and also HTTP hooks (loopback allowed), so it gets the daemon's HTTP
endpoint exactly as Claude Code does, with no process per event; its timeouts are in seconds.
Both files keep Claude Code's layout (``hooks.EVENT`` lists of matcher groups), so install,
uninstall, the record of the file before install and byte-for-byte restore are settings_install's.
Every hook gives up a margin before the agent would kill it (hookd/agents/deadlines.py).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from typing import Any

from hookd.agents import deadlines, settings_file
from hookd.agents.gemini import protocol

GEMINI_SCOPES = {"user": "~/.gemini/settings.json", "project": ".gemini/settings.json"}
QWEN_SCOPES = {"user": "~/.qwen/settings.json", "project": ".qwen/settings.json"}
BRIDGE_ARGS = "bridge gemini"
SHIM_AGENT = "--agent gemini"
HOOK_NAME = "hookd"
_GEMINI_HOOK_KEYS = frozenset({"type", "name", "command", "timeout"})

# Every event Qwen Code fires (HookEventName in its core package, and its hooks reference).
QWEN_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "UserPromptSubmit", "UserPromptExpansion",
    "SessionStart", "SessionEnd", "SessionDelete", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "Notification", "PermissionRequest", "PermissionDenied", "TodoCreated",
    "TodoCompleted", "InstructionsLoaded", "MessageDisplay",
)  # fmt: skip
# MessageDisplay fires again and again while a reply streams: not worth a request each by default.
QWEN_NOT_INSTALLED = {"MessageDisplay": "Qwen Code fires MessageDisplay repeatedly while a reply streams"}
QWEN_INSTALLED = tuple(e for e in QWEN_EVENTS if e not in QWEN_NOT_INSTALLED)
# Qwen Code reads a command hook's timeout of 1000 or more as milliseconds (its older unit).
QWEN_SECONDS_LIMIT = 1000


def path_for(agent: str, scope: str) -> str:
    scopes = {"gemini": GEMINI_SCOPES, "qwen": QWEN_SCOPES}[agent]
    if scope not in scopes:
        raise settings_file.SettingsError(f"{agent} has no {scope} settings file; use --user, --project or --settings FILE")
    return os.path.abspath(os.path.expanduser(scopes[scope]))


def gemini_command(hookd: str, timeout: int, fail_closed: bool = False, extra: str = "") -> str:
    """`hookd bridge gemini`, giving up a margin before Gemini CLI's ``timeout`` (seconds)."""
    parts = [hookd, BRIDGE_ARGS, "--timeout", deadlines.text(deadlines.deadline(timeout))]
    if fail_closed:
        parts.append("--fail-closed")
    if extra.strip():
        parts.append(extra.strip())
    return " ".join(parts)


def gemini_layout(command: str, timeout: int, events: tuple[str, ...] = protocol.INSTALLED_EVENTS) -> settings_file.Layout:
    """Every installed Gemini CLI event runs ``command``; Gemini CLI waits ``timeout`` s (written in ms)."""
    how = f"command hooks running {command}; timeout {timeout * 1000} ms"
    return _layout(lambda event: command + settings_file.with_event(event), timeout, how, events)


def gemini_shim_layout(route: settings_file.Route, events: tuple[str, ...] = protocol.INSTALLED_EVENTS) -> settings_file.Layout:
    """Every installed Gemini CLI event (``events``: by default all but those fired on every model request)
    runs the shim with ``--agent gemini`` (the Python bridge where ``route`` has no shim), which gives up a
    margin before Gemini CLI's timeout."""
    route = route._replace(agent=protocol.AGENT)
    runner = f"the shim {route.shim} --agent gemini" if route.shim else f"the Python bridge ({route.fallback} {BRIDGE_ARGS})"
    how = f"command hooks running {runner}, to 127.0.0.1:{route.port}; timeout {route.timeout * 1000} ms"
    if route.fail_closed:
        how += "; BeforeTool denied when hookd cannot be asked (--fail-closed)"
    return _layout(route.command_for, route.timeout, how, events)


def _layout(command_for: Callable[[str], str], timeout: int, how: str, events: tuple[str, ...]) -> settings_file.Layout:
    def group(event: str) -> dict[str, Any]:
        hook = {"type": "command", "name": HOOK_NAME, "command": command_for(event), "timeout": timeout * 1000}
        return {"matcher": "*", "hooks": [hook]}

    if events != protocol.INSTALLED_EVENTS:
        how += f"; events: {', '.join(events)}"
    return settings_file.Layout(events, group, is_gemini_ours, how, "gemini")


def is_gemini_ours(group: Any) -> bool:
    """A matcher group exactly as the Gemini install writes it."""
    if not isinstance(group, dict) or set(group) != {"matcher", "hooks"} or group["matcher"] != "*":
        return False
    hooks = group["hooks"]
    if not isinstance(hooks, list) or len(hooks) != 1 or not isinstance(hooks[0], dict):
        return False
    hook = hooks[0]
    command = hook.get("command")
    return (
        set(hook) <= _GEMINI_HOOK_KEYS
        and hook.get("type") == "command"
        and hook.get("name") == HOOK_NAME
        and isinstance(command, str)
        and (re.search(r"(^|\s)" + re.escape(BRIDGE_ARGS) + r"(\s|$)", command) is not None or is_gemini_shim(command))
    )


def is_gemini_shim(command: str) -> bool:
    """The shim, run for Gemini CLI (``--agent gemini``), as install writes it."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and os.path.basename(words[0]) == settings_file.SHIM_NAME and SHIM_AGENT in " ".join(words[1:])


def qwen_command_timeout(timeout: int) -> int:
    """A command hook's ``timeout`` as Qwen Code reads it: seconds below 1000, milliseconds from there on."""
    return timeout if timeout < QWEN_SECONDS_LIMIT else timeout * 1000


def qwen_layout(
    route: settings_file.Route | None, command: str | None = None, timeout: int = settings_file.DEFAULT_TIMEOUT
) -> settings_file.Layout:
    """HTTP hooks to the daemon's endpoint for every event (the shim for PreToolUse under
    --fail-closed: Qwen Code lets a tool run when an HTTP hook fails), or ``command`` everywhere
    (which gives up a margin before ``timeout``)."""

    def group(event: str) -> dict[str, Any]:
        if command is not None:
            return settings_file.group_for(command + settings_file.with_event(event), qwen_command_timeout(timeout))
        assert route is not None
        if route.fail_closed and event == "PreToolUse":
            hook = {"type": "command", "command": route.command_for(event), "timeout": qwen_command_timeout(route.timeout)}
            return {"hooks": [hook]}
        hook = route.http_hook(event)
        hook.pop("onFailure", None)  # Claude Code's key; Qwen Code has none
        return {"hooks": [hook]}

    if command is not None:
        how = f"{command}; timeout {timeout} s"
    else:
        assert route is not None
        how = f"HTTP hooks on 127.0.0.1:{route.port}; timeout {route.timeout} s"
        if route.fail_closed:
            runner = f"the shim {route.shim}" if route.shim else "the Python bridge"
            how += f"; {runner} for PreToolUse (--fail-closed)"
    return settings_file.Layout(QWEN_INSTALLED, group, settings_file.is_ours, how, "qwen")
