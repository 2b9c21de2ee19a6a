"""`hookd bridge install pi` and `uninstall pi`, called from hookd/cli/bridge.py."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from hookd.agents import agent_version, registry
from hookd.agents.pi import install as extension
from hookd.agents.pi import version


def _directory(args: argparse.Namespace) -> Path:
    # --settings names the extension directory itself for pi.
    if getattr(args, "settings", None):
        return Path(args.settings)
    if getattr(args, "scope", None) == "local":
        raise extension.InstallError("pi has no local settings: use --user (default) or --project")
    return extension.extension_dir(getattr(args, "scope", None) or "user")


def run_install(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    try:
        options = extension.parse_options(getattr(args, "bridge_args", "") or "")
        # --fail-closed is the extension's default; taken here too, as every agent's install takes it.
        if getattr(args, "fail_closed", False):
            options = dataclasses.replace(options, fail_open=False)
        result = extension.install(_directory(args), extension.client_specifier(getattr(args, "client", None)), options)
    except (extension.InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    older = agent_version.problem(registry.agent("pi"), version.detect(getattr(args, "agent_cli", None)))
    if older:
        sys.stderr.write(f"hookd: {older}\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    try:
        result = extension.uninstall(_directory(args))
    except (extension.InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
