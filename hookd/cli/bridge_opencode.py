"""`hookd bridge install opencode` and `uninstall opencode`, called from hookd/cli/bridge.py."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from hookd.agents.opencode import install as plugin


def _directory(args: argparse.Namespace) -> Path:
    # --settings names the plugin directory itself for opencode.
    if getattr(args, "settings", None):
        return Path(args.settings)
    if getattr(args, "scope", None) == "local":
        raise plugin.InstallError("opencode has no local settings: use --user (default) or --project")
    return plugin.plugin_dir(getattr(args, "scope", None) or "user")


def run_install(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    try:
        options = plugin.parse_options(getattr(args, "bridge_args", "") or "")
        # The options every agent's install takes, as the others read them (not only through --bridge-args).
        if getattr(args, "fail_closed", False):
            options = dataclasses.replace(options, fail_closed=True)
        result = plugin.install(_directory(args), plugin.client_specifier(getattr(args, "client", None)), options)
    except (plugin.InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    try:
        result = plugin.uninstall(_directory(args))
    except (plugin.InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
