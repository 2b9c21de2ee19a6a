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
# What `--list KIND` prints.
KINDS = ("commands", "points", "decision-points", "hooks", "topics", "help", "shells", "agents")


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
        choices=KINDS,
        metavar="KIND",
        help="print the names of KIND one per line (commands, points, decision-points: the points `decide` takes, hooks, "
        "topics, help: topics and commands, shells, agents: those `bridge install` takes): what the scripts call",
    )
    p.add_argument("--socket", metavar="PATH", help="daemon socket, for --list hooks")
    p.set_defaults(run=run)


def _structure() -> dict[str, dict[str, object]]:
    """Each command, and each subcommand as "command sub" -> {help, options: {option: choices, [] for a free
    value, None for a flag}, choices: what its first positional argument takes (None: free), subcommands:
    {name: help}}, from the parser itself."""
    from hookd.cli import build_parser
    from hookd.cli.helptopics import subcommand_helps, subparser

    out: dict[str, dict[str, object]] = {}

    def describe(key: str, summary: str, parser: argparse.ArgumentParser) -> None:
        options: dict[str, list[str] | None] = {}
        choices: list[str] | None = None
        subcommands: dict[str, str] = {}
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                subcommands = {c.dest: c.help or "" for c in action._choices_actions}
                continue
            if action.help == argparse.SUPPRESS:
                continue  # hidden from --help (kept for old scripts), so not offered either
            if not action.option_strings:
                if choices is None and action.choices:
                    choices = [str(c) for c in action.choices]
                continue
            for opt in action.option_strings:
                takes = action.nargs != 0
                options[opt] = [str(c) for c in action.choices] if action.choices and takes else ([] if takes else None)
        out[key] = {"help": summary, "options": options, "choices": choices, "subcommands": subcommands}
        for name, about in subcommands.items():
            describe(f"{key} {name}", about, subparser(parser, name))

    parser = build_parser()
    for name, summary in subcommand_helps(parser).items():
        describe(name, summary, subparser(parser, name))
    return out


def names(kind: str, socket: str | None = None) -> list[str]:
    if kind == "commands":
        return [c for c in _structure() if " " not in c]
    if kind == "points":
        from hookd.core.points import POINTS

        return [*POINTS, "custom."]
    if kind == "decision-points":
        # `decide` refuses an observer point: only the points where a decision can be asked are offered.
        from hookd.core.points import decision_points

        return [*decision_points(), "custom."]
    if kind == "agents":
        from hookd.cli.bridge import INSTALLABLE

        return list(INSTALLABLE)
    if kind == "topics":
        from hookd.cli.helptopics import topic_names

        return topic_names()
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
