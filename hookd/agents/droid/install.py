"""`hookd bridge install droid` / `uninstall droid`: hookd's command hooks in Factory Droid's settings.json.

Droid reads Claude Code-format hooks (``hooks.EVENT`` -> matcher groups -> ``type: "command"`` handlers,
``timeout`` in seconds, 60 by default) from the ``hooks`` key of ``~/.factory/settings.json`` and of a
project's ``.factory/settings.json``; it has no HTTP hook type. So every event it fires runs the compiled
shim (``--agent droid``: an exec and one loopback request to the daemon's /droid/EVENT endpoint), or, with
``--command``, ``--no-shim`` or no C compiler, `hookd bridge droid`. The file keeps Claude Code's layout, so
install, uninstall, the record of the file before install and the byte-for-byte restore are
settings_install's. Every hook gives up a margin before Droid would kill it (hookd/agents/deadlines.py).
"""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from hookd.agents import settings_file
from hookd.agents.droid import protocol

SCOPES = {"user": "~/.factory/settings.json", "project": ".factory/settings.json"}
BRIDGE_ARGS = "bridge droid"
SHIM_AGENT = "--agent droid"
_HOOK_KEYS = frozenset({"type", "command", "timeout"})


def path_for(scope: str) -> str:
    if scope not in SCOPES:
        raise settings_file.SettingsError(f"Factory Droid has no {scope} settings file; use --user, --project or --settings FILE")
    return os.path.abspath(os.path.expanduser(SCOPES[scope]))


def layout(
    route: settings_file.Route | None, command: str | None = None, timeout: int = settings_file.DEFAULT_TIMEOUT
) -> settings_file.Layout:
    """Every Droid event runs the shim with ``--agent droid`` (the Python bridge where ``route`` has no shim), or
    ``command`` (the Python bridge, which gives up a margin before ``timeout``)."""
    if command is not None:
        how = f"command hooks running {command}; timeout {timeout} s"

        def command_for(event: str) -> str:
            return command + settings_file.with_event(event)

        waits = timeout
    else:
        assert route is not None
        route = route._replace(agent=protocol.AGENT)
        runner = f"the shim {route.shim} {SHIM_AGENT}" if route.shim else f"the Python bridge ({route.fallback} {BRIDGE_ARGS})"
        how = f"command hooks running {runner}, to 127.0.0.1:{route.port}; timeout {route.timeout} s"
        if route.fail_closed:
            how += "; PreToolUse denied when hookd cannot be asked (--fail-closed)"
        command_for = route.command_for
        waits = route.timeout

    def group(event: str) -> dict[str, Any]:
        return {"hooks": [{"type": "command", "command": command_for(event), "timeout": waits}]}

    return settings_file.Layout(protocol.INSTALLED_EVENTS, group, is_ours, how, protocol.AGENT)


def is_ours(group: Any) -> bool:
    """A matcher group exactly as the Droid install writes it: one command hook running the shim for Droid or `hookd bridge droid`."""
    if not isinstance(group, dict) or set(group) != {"hooks"} or not isinstance(group["hooks"], list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    if not isinstance(hook, dict) or not set(hook) <= _HOOK_KEYS or hook.get("type") != "command":
        return False
    command = hook.get("command")
    if not isinstance(command, str):
        return False
    if re.search(r"(^|\s)" + re.escape(BRIDGE_ARGS) + r"(\s|$)", command):
        return True
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return bool(words) and os.path.basename(words[0]) == settings_file.SHIM_NAME and SHIM_AGENT in " ".join(words[1:])
