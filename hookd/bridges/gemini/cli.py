"""`hookd bridge gemini` and `hookd bridge install|uninstall gemini|qwen`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def main(argv: Sequence[str]) -> int:
    """One Gemini CLI hook event: the Claude Code bridge's machinery with Gemini CLI's mapping."""
    from hookd.bridges import run

    from . import protocol

    opts = run.parse(argv)
    if opts is None:
        p = run.parser()
        p.prog = "hookd bridge gemini"
        p.description = "Read a Gemini CLI hook input on stdin, run the matching hookd point, and print Gemini CLI's hook output."
        ns = p.parse_args(argv)
        opts = run.Options(ns.timeout, ns.fail_closed, ns.socket, ns.event)
    return run.run(opts, protocol)


def run_bridge(args: argparse.Namespace) -> int:
    from hookd.bridges import run

    from . import protocol

    return run.run(args, protocol)


def _path(args: argparse.Namespace) -> str:
    from . import install

    return args.settings or install.path_for(args.agent, args.scope or "user")


def run_install(args: argparse.Namespace) -> int:
    from hookd.bridges import settings_file
    from hookd.cli.bridge import route
    from hookd.cli.common import fail
    from hookd.httphooks.files import EndpointFileError

    from . import install

    timeout = max(1, args.timeout)
    try:
        path = _path(args)
        if args.agent == "gemini":
            hookd = args.command or settings_file.default_hookd()
            layout = install.gemini_layout(install.gemini_command(hookd, timeout, args.fail_closed, args.bridge_args), timeout)
            result = settings_file.install(path, layout=layout)
        elif args.command is not None:
            extra = " ".join(x for x in (args.bridge_args, "--fail-closed" if args.fail_closed else "") if x)
            command = f"{args.command} bridge qwen {extra}".strip()
            result = settings_file.install(path, layout=install.qwen_layout(None, command))
        else:
            r = route(args)._replace(agent="qwen")
            result = settings_file.install(path, route=r, layout=install.qwen_layout(r))
    except (settings_file.SettingsError, EndpointFileError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.bridges import settings_file
    from hookd.cli.common import fail

    from . import install

    ours = install.is_gemini_ours if args.agent == "gemini" else settings_file.is_ours
    try:
        result = settings_file.uninstall(_path(args), ours)
    except settings_file.SettingsError as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
