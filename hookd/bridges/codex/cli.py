"""`hookd bridge install codex` and `uninstall codex`, called from hookd/cli/bridge.py."""

from __future__ import annotations

import argparse
import sys

from . import install


def _path(args: argparse.Namespace) -> str:
    if getattr(args, "settings", None):
        return str(args.settings)
    return install.config_path(getattr(args, "scope", None) or "user")


def options_for(args: argparse.Namespace) -> install.Options:
    """What to install: the shim and the daemon's HTTP endpoint (as for Claude Code's command-only events),
    else, with --command or --no-shim or without a C compiler, the Python bridge."""
    timeout = max(1, getattr(args, "timeout", install.DEFAULT_TIMEOUT))
    fail_closed = bool(getattr(args, "fail_closed", False))
    extra = getattr(args, "bridge_args", "") or ""
    command = getattr(args, "command", None)
    if command is not None:
        return install.default_options(timeout, fail_closed, extra, hookd=command)
    from hookd.cli.bridge import route

    how = route(args)
    return install.default_options(timeout, fail_closed, extra)._replace(shim=how.shim, port=how.port, token_file=how.token_file)


def run_install(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail
    from hookd.httphooks.files import EndpointFileError

    try:
        options = options_for(args)
        path = _path(args)
        result = install.install(path, options)
    except (install.InstallError, EndpointFileError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    codex = getattr(args, "trust", None)
    if not codex:
        sys.stdout.write(install.TRUST_NOTE + "\n")
        return 0
    from . import trust

    try:
        trusted = trust.trust(codex, path, install.commands(options))
    except trust.TrustError as exc:
        sys.stdout.write(install.TRUST_NOTE + "\n")
        return fail(f"the hooks are installed but not trusted: {exc}")
    sys.stdout.write(f"trusted through Codex ({codex} app-server): {trusted} hookd hooks in {path}\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.cli.common import fail

    try:
        result = install.uninstall(_path(args))
    except (install.InstallError, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
