"""`hookd bridge`: route an agent's command hooks through hookd, and install or remove that route."""

from __future__ import annotations

import argparse
import sys

from hookd.bridges.run import add_options

AGENTS = ("claude-code",)
INSTALLABLE = (*AGENTS, "opencode")


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "bridge",
        help="route an agent's command hooks (Claude Code and compatible) through hookd",
        description="Agents such as Claude Code (and Codex, Cursor, Gemini CLI, Copilot, which copy its format) call "
        "hooks as commands. `hookd bridge claude-code` is that command: the agent runs it for every event and hookd "
        "answers with its ordered, warm, audited hooks. See docs/bridges.md.",
    )
    bridges = p.add_subparsers(dest="bridge_command", metavar="SUBCOMMAND")

    c = bridges.add_parser(
        "claude-code",
        help="handle one Claude Code hook event (stdin: hook input, stdout: hook output)",
        description="Read one Claude Code hook input on stdin, run the matching hookd point, and print the hook "
        "output Claude Code expects. Exits 0; when hookd is down it prints one line to stderr and the agent "
        "proceeds (with --fail-closed a PreToolUse is denied instead).",
    )
    add_options(c)
    c.set_defaults(run=run_bridge)

    r = bridges.add_parser(
        "run-hook",
        help="run a hook written for Claude Code as a hookd command hook (used by `hookd import`)",
        description="Run CMD, a hook written for Claude Code, as a hookd command hook: hookd's payload becomes the "
        "Claude Code hook input on CMD's stdin, and CMD's output JSON or exit code 2 becomes a hookd decision. "
        "`hookd import claude-code` writes hooks that use this.",
    )
    r.add_argument("agent", choices=AGENTS, help="the agent whose hook format CMD speaks")
    r.add_argument("--matcher", help="the settings matcher; the hook abstains on events it does not match")
    r.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    r.set_defaults(run=run_hook)

    for verb, summary in (
        ("install", "add the bridge to the agent's settings for every event it maps (a backup is written first)"),
        ("uninstall", "remove exactly what `hookd bridge install` added"),
    ):
        description = summary[0].upper() + summary[1:] + ". Other settings and hooks are kept as they are."
        i = bridges.add_parser(verb, help=summary, description=description)
        i.add_argument("agent", nargs="?", default="claude-code", choices=INSTALLABLE, help="the agent (default claude-code)")
        where = i.add_mutually_exclusive_group()
        where.add_argument("--user", dest="scope", action="store_const", const="user", help="~/.claude/settings.json (default)")
        where.add_argument("--project", dest="scope", action="store_const", const="project", help="./.claude/settings.json")
        where.add_argument("--local", dest="scope", action="store_const", const="local", help="./.claude/settings.local.json")
        where.add_argument("--settings", metavar="FILE", help="this settings file")
        if verb == "install":
            i.add_argument("--command", metavar="CMD", help="how the agent runs hookd (default: this hookd's absolute path)")
            i.add_argument("--bridge-args", metavar="ARGS", default="", help="extra bridge options, e.g. '--fail-closed --timeout 5'")
            i.add_argument("--client", metavar="PATH", help="opencode: the hookd-client package the plugin imports")
        i.set_defaults(run=run_install if verb == "install" else run_uninstall, scope=None)

    p.set_defaults(run=lambda args: (p.print_help(sys.stderr), 2)[1])


def run_bridge(args: argparse.Namespace) -> int:
    from hookd.bridges.run import run

    return run(args)


def run_hook(args: argparse.Namespace) -> int:
    from hookd.bridges.adapter import main

    matcher = ["--matcher", args.matcher] if args.matcher is not None else []
    return main([*matcher, *args.cmd])


def _settings_path(args: argparse.Namespace) -> str:
    from hookd.bridges import settings_file

    return args.settings or settings_file.path_for(args.scope or "user")


def run_install(args: argparse.Namespace) -> int:
    if args.agent == "opencode":
        from hookd.bridges.opencode.cli import run_install as install_opencode

        return install_opencode(args)
    from hookd.bridges import settings_file

    from .common import fail

    path = _settings_path(args)
    command = settings_file.bridge_command(args.command, args.bridge_args)
    try:
        result = settings_file.install(path, command)
    except settings_file.SettingsError as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    if args.agent == "opencode":
        from hookd.bridges.opencode.cli import run_uninstall as uninstall_opencode

        return uninstall_opencode(args)
    from hookd.bridges import settings_file

    from .common import fail

    try:
        result = settings_file.uninstall(_settings_path(args))
    except settings_file.SettingsError as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
