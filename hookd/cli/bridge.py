"""`hookd bridge`: route an agent's command hooks through hookd, and install or remove that route."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from hookd.agents import adapter, deadlines, registry
from hookd.agents.run import add_options

INSTALLABLE = registry.NAMES


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
    x = bridges.add_parser("codex", help="handle one Codex hook event (stdin: hook input, stdout: hook output)")
    add_options(x)
    x.set_defaults(run=run_bridge)
    g = bridges.add_parser("gemini", help="handle one Gemini CLI hook event (stdin: hook input, stdout: hook output)")
    add_options(g)
    g.set_defaults(run=run_bridge)

    from hookd.cli import bridge_status

    bridge_status.add(bridges)

    r = bridges.add_parser(
        "run-hook",
        help="run a hook written for an agent as a hookd command hook (used by `hookd import`)",
        description="Run CMD, a hook written for the agent, as a hookd command hook: hookd's payload becomes the "
        "agent's hook input on CMD's stdin, and CMD's answer (its output JSON, or an exit code the agent reads) becomes "
        "a hookd decision. `hookd import AGENT` writes hooks that use this (--matcher for Claude Code's, --event for the others').",
    )
    r.add_argument("agent", choices=tuple(adapter.FORMATS), help="the agent whose hook format CMD speaks")
    r.add_argument("--matcher", help="claude-code: the settings matcher; the hook abstains on events it does not match")
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
            i.add_argument(
                "--command",
                metavar="CMD",
                help="run the Python bridge as this command for every mapped event, instead of HTTP hooks and the shim",
            )
            i.add_argument("--bridge-args", metavar="ARGS", default="", help="extra bridge options with --command, e.g. '--fail-closed'")
            i.add_argument(
                "--fail-closed",
                action="store_true",
                help="when hookd is down or cannot answer, deny tool calls (PreToolUse) instead of letting them run",
            )
            i.add_argument(
                "--timeout",
                type=int,
                metavar="SECONDS",
                default=600,
                help="how long the agent waits for each hook (default 600, Claude Code's own default); hookd answers a "
                "margin before it (2 %% of it, at least 2 s), so the agent hears hookd's answer rather than killing the hook. "
                f"From {deadlines.MIN_TIMEOUT} to {deadlines.MAX_TIMEOUT}; keep it longer than your longest hook's",
            )
            i.add_argument(
                "--all-events",
                action="store_true",
                help="gemini: also the events Gemini CLI fires on every model request (BeforeModel, BeforeToolSelection, "
                "AfterModel), a process each; elsewhere no effect, kept so that older scripts still run",
            )
            i.add_argument("--no-shim", action="store_true", help="use the Python bridge, not the compiled shim, where a command is needed")
            i.add_argument(
                "--client", metavar="PATH", help="opencode, pi: a hookd-client build (an ESM file) the plugin imports instead of its own"
            )
            i.add_argument(
                "--agent-cli",
                metavar="PATH",
                help="the agent's own command: claude (its version decides how --fail-closed is installed) or codex (it "
                "trusts the hooks); default: found on PATH",
            )
            i.add_argument(
                "--trust",
                nargs="?",
                const="",
                metavar="CODEX",
                help="codex: trust the installed hooks through this Codex (the default: install always trusts them)",
            )
            i.add_argument(
                "--no-trust",
                action="store_true",
                help="codex: do not trust the hooks; Codex then runs none of them, so install warns and exits 1 "
                "unless --accept-untrusted is given too",
            )
            i.add_argument(
                "--accept-untrusted",
                action="store_true",
                help="codex, with --no-trust: exit 0 all the same (for `codex exec --dangerously-bypass-hook-trust`)",
            )
        i.add_argument("--json", action="store_true", help="print the result as JSON: agent, action, settings and message")
        i.set_defaults(run=reported(run_install if verb == "install" else run_uninstall, verb), scope=None)

    p.set_defaults(run=lambda args: (p.print_help(sys.stderr), 2)[1])


def reported(run: Callable[[argparse.Namespace], int], action: str) -> Callable[[argparse.Namespace], int]:
    """``run`` (an agent's install or uninstall, which prints one line saying what it did) with --json:
    the line is caught and printed as ``{agent, action, settings, message, ok}``. The one place that
    renders an install's result, whichever agent it is for."""

    def run_reported(args: argparse.Namespace) -> int:
        if not args.json:
            return run(args)
        import contextlib
        import io

        from hookd.cli.common import print_json

        caught = io.StringIO()
        with contextlib.redirect_stdout(caught):
            code = run(args)
        named = getattr(_installer(args.agent), "settings_path", None)
        settings = args.settings or (named(args) if named else None)
        message = caught.getvalue().strip()
        print_json({"agent": args.agent, "action": action, "settings": settings, "message": message, "ok": code == 0})
        return code

    return run_reported


def run_bridge(args: argparse.Namespace) -> int:
    """`hookd bridge AGENT` parsed (hookd.cli.main takes the agents' usual forms before any parser is built)."""
    from importlib import import_module

    from hookd.cli import BRIDGE_PROGRAMS

    runner, protocol = BRIDGE_PROGRAMS[args.bridge_command]
    return int(import_module(runner).run(args, import_module(protocol)))


def run_hook(args: argparse.Namespace) -> int:
    """The adapter, with the agent's own option (``--event``) as it came in ``cmd``."""
    matcher = ["--matcher", args.matcher] if args.matcher is not None else []
    return adapter.main(args.agent, [*matcher, *args.cmd])


# The module of each agent's installer: ``run_install(args)`` and ``run_uninstall(args)``, each printing one line.
INSTALLERS = {
    "claude-code": "hookd.cli.bridge_claude_code",
    "qwen": "hookd.cli.bridge_gemini",
    "gemini": "hookd.cli.bridge_gemini",
    "codex": "hookd.cli.bridge_codex",
    "opencode": "hookd.cli.bridge_plugin",
    "droid": "hookd.cli.bridge_droid",
    "copilot": "hookd.cli.bridge_shim_file",
    "cline": "hookd.cli.bridge_shim_file",
    "pi": "hookd.cli.bridge_plugin",
}


def _installer(agent: str):  # type: ignore[no-untyped-def]
    import importlib

    return importlib.import_module(INSTALLERS[agent])


def run_install(args: argparse.Namespace) -> int:
    return int(_installer(args.agent).run_install(args))


def run_uninstall(args: argparse.Namespace) -> int:
    return int(_installer(args.agent).run_uninstall(args))
