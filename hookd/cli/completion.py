"""`hookd completion SHELL`: tab completion for bash, zsh and fish, as `gh completion -s SHELL`.

The script is generated from the command line's own parser, so every
subcommand and option is in it. Values that change (hook names from the
running daemon, the points) are asked of `hookd completion --list KIND` when
a tab is pressed; with no daemon, hook names simply do not complete.
"""

from __future__ import annotations

import argparse
import sys

SHELLS = ("bash", "zsh", "fish")
# Which positional argument of a command takes what.


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh, fish)",
        description="Print the tab-completion script for SHELL: subcommands, options, points, and hook names (asked of "
        "the running daemon). Install: bash: `hookd completion bash > ~/.local/share/bash-completion/completions/hookd`; "
        'zsh: `hookd completion zsh > "${fpath[1]}/_hookd"`; fish: `hookd completion fish > '
        "~/.config/fish/completions/hookd.fish`.",
    )
    p.add_argument("shell", nargs="?", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    p.add_argument(
        "--list",
        choices=["commands", "points", "hooks", "topics", "help", "shells"],
        metavar="KIND",
        help="print the names of KIND one per line (commands, points, hooks, topics, help: topics and commands, shells): "
        "what the scripts call",
    )
    p.add_argument("--socket", metavar="PATH", help="daemon socket, for --list hooks")
    p.set_defaults(run=run)


def _structure() -> dict[str, dict[str, object]]:
    """command -> {help, options: {option: choices or None}}, from the parser itself."""
    from hookd.cli import build_parser
    from hookd.cli.helptopics import subcommand_helps, subparser

    parser = build_parser()
    out: dict[str, dict[str, object]] = {}
    for name, summary in subcommand_helps(parser).items():
        options: dict[str, list[str] | None] = {}
        for action in subparser(parser, name)._actions:
            for opt in action.option_strings:
                takes = action.nargs != 0
                options[opt] = [str(c) for c in action.choices] if action.choices and takes else ([] if takes else None)
        out[name] = {"help": summary, "options": options}
    return out


def names(kind: str, socket: str | None = None) -> list[str]:
    if kind == "commands":
        return list(_structure())
    if kind == "points":
        from hookd.core.points import POINTS

        return [*POINTS, "custom."]
    if kind == "topics":
        from hookd.cli.helptopics import TOPICS

        return list(TOPICS)
    if kind == "help":
        return sorted({*names("topics"), *names("commands")})
    if kind == "shells":
        return list(SHELLS)
    from hookd_client import Client, HookdError

    try:
        with Client(socket, name="hookd-completion", timeout=2.0, reconnect=0) as c:
            return sorted({h.name for h in c.list_hooks(None).hooks})
    except (HookdError, OSError):
        return []


def run(args: argparse.Namespace) -> int:
    from hookd.cli.common import USAGE, fail

    if args.list:
        for name in names(args.list, args.socket):
            sys.stdout.write(name + "\n")
        return 0
    if args.shell is None:
        return fail("name a shell: hookd completion bash|zsh|fish", USAGE)
    from hookd.cli import completion_scripts

    sys.stdout.write(getattr(completion_scripts, args.shell)(_structure()))
    return 0
