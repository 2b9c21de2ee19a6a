"""The `hookd` command, one module per group of subcommands.

Each subcommand lives in its own module and imports
only what it needs when it runs, so that quick commands (emit, decide, the
agent bridge) start fast."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # Imported where used: the bridge fast path in main() needs neither.
    import argparse
    from collections.abc import Sequence

# Subcommand modules, in `hookd --help` order, each with the commands its add(subparsers) defines. A
# command's parser is built alone: importing every module and building every parser cost more CPU than
# most commands' own work (tests/unit/cli/test_commands_table.py holds this table to the modules).
COMMANDS: dict[str, tuple[str, ...]] = {
    "serve": ("serve",),
    "calls": ("emit", "decide", "explain", "status"),
    "catalog": ("points",),
    "check": ("check",),
    "guards": ("guards",),
    "hookconf": ("hooks", "enable", "disable", "trust", "untrust"),
    "tail": ("tail",),
    "stats": ("stats",),
    "approve": ("approve",),
    "dashboard": ("dashboard",),
    "replay": ("replay",),
    "bridge": ("bridge",),
    "importer": ("import",),
    "install_systemd": ("install-systemd",),
    "plugins": ("plugins",),
    "doctor": ("doctor",),
    "init": ("init", "edit"),
    "completion": ("completion",),
    "helptopics": ("help",),
}


# `hookd bridge AGENT`, the Python bridge an agent starts once per event: the agent -> (the module whose
# ``main(argv, dialect)`` runs it, the agent's protocol module holding its DIALECT). Read before any command's parser is built.
_RUN = "hookd.agents.run"
BRIDGE_PROGRAMS = {
    "claude-code": (_RUN, "hookd.agents.claude_code.protocol"),
    "qwen": (_RUN, "hookd.agents.qwen.protocol"),
    "gemini": (_RUN, "hookd.agents.gemini.protocol"),
    "droid": (_RUN, "hookd.agents.droid.protocol"),
    "codex": (_RUN, "hookd.agents.codex.protocol"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line's parser; with ``command``, one that knows only the module defining it (the
    same parser for that command: its usage, options and errors), or the whole one if none does."""
    import argparse
    import importlib

    parser = argparse.ArgumentParser(
        prog="hookd",
        description="hookd: the per-user hook daemon for AI coding agents. Runs your hooks in a defined order, warm and audited.",
        epilog="Socket: $HOOKD_SOCKET, else $XDG_RUNTIME_DIR/hookd/hookd.sock, else /tmp/hookd-$UID/hookd.sock. "
        "Docs: `hookd help` lists the topics (hooks, points, match, files, exit-codes) and the pages of the "
        "documentation, each shown by `hookd help NAME` (a page a help text names as docs/NAME.md too); "
        "`hookd help COMMAND` is a command's help; `man hookd`.",
    )
    from hookd import __version__

    parser.add_argument("--version", action="version", version=f"hookd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    owner = [name for name, commands in COMMANDS.items() if command in commands]
    for name in owner or COMMANDS:
        importlib.import_module(f"hookd.cli.{name}").add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["bridge"] and len(args_list) > 1:
        # The agent starts the bridge for every event: skip importing every command's parser.
        program = BRIDGE_PROGRAMS.get(args_list[1])
        if program is not None:
            from importlib import import_module

            runner, protocol = program
            return int(import_module(runner).main(args_list[2:], import_module(protocol).DIALECT))
        if args_list[1] == "run-hook" and len(args_list) > 2:
            from hookd.agents import adapter

            if args_list[2] in adapter.FORMATS:
                return adapter.main(args_list[2], args_list[3:])
    parser = build_parser(args_list[0] if args_list else None)
    args = parser.parse_args(args_list)
    if not getattr(args, "run", None):
        parser.print_help(sys.stderr)
        return 2
    saved = sys.stdout, sys.stderr
    if args.command != "serve":  # the daemon logs through structlog, which renders its own output
        from hookd.core.termsafe import SafeStream

        # Every command prints text that others wrote (payloads, hook answers, file content, daemon errors):
        # control characters in it are shown escaped, never sent to the terminal.
        sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)  # type: ignore[assignment]
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        sys.stdout, sys.stderr = saved
