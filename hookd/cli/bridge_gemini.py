"""`hookd bridge install|uninstall gemini|qwen` (`hookd bridge gemini` itself is hookd/agents/run.py's, see hookd/cli/__init__.py).

Gemini CLI's hooks run the compiled shim (``--agent gemini``) unless ``--command`` or ``--no-shim``
asks for the Python bridge, which is also what runs where no shim could be built."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def _path(args: argparse.Namespace) -> str:
    from hookd.agents.gemini import install

    return args.settings or install.path_for(args.agent, args.scope or "user")


def _gemini(args: argparse.Namespace, path: str, timeout: int, extra: str) -> str:
    """Gemini CLI: the shim by default (an exec and one loopback request per event); the Python bridge with
    --command or --no-shim, or where no shim could be built."""
    from hookd.agents import settings_file, settings_install
    from hookd.agents.gemini import install, protocol
    from hookd.cli.bridge_route import route
    from hookd.config.statefiles import state_home

    events = protocol.ALL_EVENTS if args.all_events else protocol.INSTALLED_EVENTS
    shimmed = None if args.command is not None or args.no_shim else route(args, timeout)
    if shimmed is not None and shimmed.shim:
        layout = install.gemini_shim_layout(shimmed, events)
    else:
        hookd = args.command or settings_file.default_hookd()
        layout = install.gemini_layout(install.gemini_command(hookd, timeout, args.fail_closed, extra), timeout, events)
    return settings_install.install(path, layout, state=state_home())


def _qwen(args: argparse.Namespace, path: str, timeout: int, extra: str) -> str:
    """Qwen Code: HTTP hooks answered by the daemon, or the Python bridge with --command."""
    from hookd.agents import settings_file, settings_install
    from hookd.agents.gemini import install
    from hookd.cli.bridge_route import route
    from hookd.config.statefiles import state_home

    if args.command is not None:
        extra = " ".join(x for x in (extra, "--fail-closed" if args.fail_closed else "") if x)
        command = settings_file.bridge_command(args.command, extra, timeout, agent="qwen")
        return settings_install.install(path, install.qwen_layout(None, command, timeout), state=state_home())
    r = route(args, timeout)._replace(agent="qwen")
    result = settings_install.install(path, install.qwen_layout(r), state=state_home(), token=r.token)
    if os.path.abspath(path) != install.path_for("qwen", "user"):
        sys.stderr.write(
            f"hookd: WARNING: {path} now holds your hookd secret (HOOKD_BRIDGE_TOKEN), which lets anyone who reads "
            "it call your hooks; Qwen Code has no settings file that stays out of a repository, so do not commit "
            "this one, or install with --user instead\n"
        )
    return result


# Each agent's install, and the test of a hook being hookd's that its uninstall uses.
INSTALLS = {"gemini": _gemini, "qwen": _qwen}
OURS = {"gemini": "hookd.agents.gemini.install:is_gemini_ours", "qwen": "hookd.agents.settings_file:is_ours"}


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, registry, safe_write, settings_file
    from hookd.cli.bridge_route import checked_bridge_args, checked_timeout
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError

    try:
        timeout = checked_timeout(args, registry.agent(args.agent).title)
        extra = checked_bridge_args(args)
        result = INSTALLS[args.agent](args, _path(args), timeout, extra)
    except (deadlines.TimeoutRefused, settings_file.SettingsError, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    import importlib

    from hookd.agents import safe_write, settings_file, settings_install
    from hookd.cli.common import fail
    from hookd.config.statefiles import state_home

    module, _, name = OURS[args.agent].partition(":")
    ours = getattr(importlib.import_module(module), name)
    try:
        result = settings_install.uninstall(_path(args), ours, state=state_home())
    except (settings_file.SettingsError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
