"""`hookd bridge install|uninstall AGENT` for an agent that loads hookd as a plugin file in its own folder (opencode's
plugin, pi's extension: hookd/agents/plugin_install.py); called from hookd/cli/bridge.py.

What differs from agent to agent is a row of ``AGENTS``: the agent's install module (``parse_options(text)``,
``client_specifier(client)``, ``install(folder, specifier, options)``, ``uninstall(folder)``), the function of it
that names the folder for a scope, and what ``--fail-closed`` sets in its options. After install, an agent whose
registry row names a version says when the one it finds is older than the plugin needs.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from hookd.agents import registry
from hookd.agents.plugin_install import InstallError
from hookd.cli.bridge_said import said, warn_older


class PluginFolder(NamedTuple):
    install: str  # the agent's install module
    folder: str  # its function: scope -> the plugin folder
    fail_closed: Mapping[str, Any]  # what --fail-closed sets in its options


AGENTS = {
    "opencode": PluginFolder("hookd.agents.opencode.install", "plugin_dir", {"fail_closed": True}),
    "pi": PluginFolder("hookd.agents.pi.install", "extension_dir", {"fail_open": False}),  # pi's default already
}


def _module(args: argparse.Namespace) -> ModuleType:
    return importlib.import_module(AGENTS[args.agent].install)


def _folder(args: argparse.Namespace) -> Path:
    # --settings names the plugin folder itself.
    if getattr(args, "settings", None):
        return Path(args.settings)
    if getattr(args, "scope", None) == "local":
        raise InstallError(f"{args.agent} has no local settings: use --user (default) or --project")
    return Path(getattr(_module(args), AGENTS[args.agent].folder)(getattr(args, "scope", None) or "user"))


def run_install(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    install = _module(args)
    try:
        options = install.parse_options(getattr(args, "bridge_args", "") or "")
        # The options every agent's install takes, as the others read them (not only through --bridge-args).
        if getattr(args, "fail_closed", False):
            options = dataclasses.replace(options, **AGENTS[args.agent].fail_closed)
        result = install.install(_folder(args), install.client_specifier(getattr(args, "client", None)), options)
    except (InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    warn_older(registry.agent(args.agent), getattr(args, "agent_cli", None))
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    return said(lambda: _module(args).uninstall(_folder(args)), (InstallError, OSError))
