"""`hookd bridge install claude-code`: Claude Code's settings get the daemon's HTTP hooks (the shim where a
command is needed), or the Python bridge as a command with ``--command``."""

from __future__ import annotations

import argparse
import os
import sys

from hookd.agents import deadlines
from hookd.cli.bridge_route import checked_bridge_args, checked_timeout, route


def settings_path(args: argparse.Namespace) -> str:
    from hookd.agents import settings_file

    return args.settings or settings_file.path_for(args.scope or "user")


def claude_route(args: argparse.Namespace, timeout: int):  # type: ignore[no-untyped-def]
    """The route for Claude Code: with --fail-closed on a Claude Code that ignores onFailure (or one that cannot
    be asked), PreToolUse runs the shim, which denies by itself when hookd does not answer."""
    from hookd.agents import agent_version, registry

    chosen = route(args, timeout)
    if not args.fail_closed:
        return chosen
    row = registry.agent("claude-code")
    found = agent_version.of(row, args.agent_cli)
    if row.version is None or found.at_least(row.version.minimum):
        return chosen
    since = agent_version.minimum(row)
    runner = "the shim" if chosen.shim else "the Python bridge"
    sys.stderr.write(
        f"hookd bridge install: {found.describe()}; Claude Code before {since} ignores onFailure on an HTTP hook and "
        f"would run the tool when hookd is down, so PreToolUse runs {runner} with --fail-closed instead, which denies "
        f"by itself (install again after upgrading Claude Code to get the HTTP hook)\n"
    )
    return chosen._replace(commands=chosen.commands | {"PreToolUse"})


def forget_legacy_record() -> None:
    """Earlier versions recorded their installs for a daemon that rewrote them; nothing reads that record now."""
    import contextlib

    from hookd.config.statefiles import state_home

    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(state_home(), "claude-installs.json"))


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write, settings_file, settings_install
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError
    from hookd.config.statefiles import state_home

    path = settings_path(args)
    try:
        timeout = checked_timeout(args, "Claude Code")
        if args.command is not None:
            extra = " ".join(x for x in (checked_bridge_args(args), "--fail-closed" if args.fail_closed else "") if x)
            command = settings_file.bridge_command(args.command, extra, timeout)
            result = settings_install.install(path, settings_file.command_layout(command, timeout), state=state_home())
        else:
            chosen = claude_route(args, timeout)
            secret = settings_file.secret_home(path)
            layout = settings_file.route_layout(chosen)
            result = settings_install.install(path, layout, state=state_home(), token=chosen.token, secret_path=secret)
            warning = settings_install.unignored_warning(secret) if secret is not None else None
            if warning:
                sys.stderr.write(f"hookd: {warning}\n")
        forget_legacy_record()
    except (deadlines.TimeoutRefused, settings_file.SettingsError, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write, settings_file, settings_install
    from hookd.cli.common import fail
    from hookd.config.statefiles import state_home

    path = settings_path(args)
    try:
        result = settings_install.uninstall(path, state=state_home(), secret_path=settings_file.secret_home(path))
        forget_legacy_record()
    except (settings_file.SettingsError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
