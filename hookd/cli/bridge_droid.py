"""`hookd bridge install|uninstall droid` (`hookd bridge droid` itself, one event, is hookd/agents/run.py's).

Install writes the compiled shim (``--agent droid``) for every Droid event, or the Python bridge with
``--command``, ``--no-shim`` or where no shim could be built; it says when the Droid it finds is older than
the bridge supports (its row's ``version`` in hookd/agents/registry.py)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from hookd.cli.bridge_said import said, warn_older

if TYPE_CHECKING:
    import argparse


def _path(args: argparse.Namespace) -> str:
    from hookd.agents.droid import install

    return str(args.settings) if getattr(args, "settings", None) else install.path_for(getattr(args, "scope", None) or "user")


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, registry, safe_write, settings_file, settings_install
    from hookd.agents.droid import install
    from hookd.cli.bridge_route import checked_bridge_args, checked_timeout, route
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError
    from hookd.config.statefiles import state_home

    try:
        timeout = checked_timeout(args, "Factory Droid")
        extra = checked_bridge_args(args)
        path = _path(args)
        shimmed = None if args.command is not None or args.no_shim else route(args, timeout)
        if shimmed is not None and shimmed.shim:
            layout = install.layout(shimmed)
        else:
            extra = " ".join(x for x in (extra, "--fail-closed" if args.fail_closed else "") if x)
            layout = install.layout(None, settings_file.bridge_command(args.command, extra, timeout, agent="droid"), timeout)
        result = settings_install.install(path, layout, state=state_home())
    except (deadlines.TimeoutRefused, settings_file.SettingsError, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    warn_older(registry.agent("droid"), getattr(args, "agent_cli", None), "hookd: WARNING: ")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write, settings_file, settings_install
    from hookd.agents.droid import install
    from hookd.config.statefiles import state_home

    return said(
        lambda: settings_install.uninstall(_path(args), install.is_ours, state=state_home()),
        (settings_file.SettingsError, safe_write.Busy, OSError),
    )
