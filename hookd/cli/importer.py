"""`hookd import claude-code SETTINGS.json`: move an agent's existing hooks under hookd."""

from __future__ import annotations

import argparse
import os
import sys

from hookd.cli.common import fail, plural

# The agent -> its importer's row (hookd/agents/import_source.py's Source), as "module:NAME": how its file is read,
# how the imported hooks are moved out of its way, and how that is undone.
SOURCES = {
    "claude-code": "hookd.agents.claude_code.importer:SOURCE",
    "codex": "hookd.agents.codex.importer:SOURCE",
    "gemini": "hookd.agents.gemini.importer:GEMINI_SOURCE",
    "qwen": "hookd.agents.gemini.importer:QWEN_SOURCE",
    "droid": "hookd.agents.droid.importer:SOURCE",
    "copilot": "hookd.agents.copilot.importer:SOURCE",
    "cline": "hookd.agents.cline.importer:SOURCE",
}


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "import",
        help="move an agent's settings hooks into a hookd hooks file",
        description="Read the hooks of a Claude Code settings file (or a plugin's hooks/hooks.json) and write them as "
        "hookd hooks: each command hook lands on the hookd point its event maps to (see docs/bridges.md) with "
        "`format: claude-code`, so the daemon runs the command itself with Claude Code's rules (input, exit codes, "
        "JSON, working directory, the agent's environment, timeouts); the decision hooks form one group combined "
        "`strictest`, as Claude Code combines them. With -o the imported hooks are moved: the settings file is "
        "rewritten without them (its original bytes kept beside it) so that they do not run twice; --undo puts it "
        "back byte for byte. Without -o the YAML is printed and nothing is changed.",
    )
    p.add_argument("agent", choices=tuple(SOURCES), help="the agent whose settings format SETTINGS uses")
    p.add_argument("settings", metavar="SETTINGS.json", help="the settings file to read, e.g. ~/.claude/settings.json")
    p.add_argument("-o", "--output", metavar="FILE", help="write the hooks here (refuses to overwrite) and move them out of SETTINGS")
    p.add_argument("--keep", action="store_true", help="with -o: leave SETTINGS as it is (the hooks then run twice)")
    p.add_argument("--undo", action="store_true", help="put SETTINGS back as it was before an import moved its hooks")
    p.add_argument("--plugin-root", metavar="DIR", help="the plugin directory, for hooks that use ${CLAUDE_PLUGIN_ROOT}")
    p.add_argument("--json", action="store_true", help="print what was done as JSON: the hooks, notes, files written and moved")
    p.add_argument("--hookd", metavar="CMD", help=argparse.SUPPRESS)  # hooks no longer run through a wrapper
    p.set_defaults(run=run)


def plugin_root_of(settings: str) -> str | None:
    """A plugin's directory when ``settings`` is its hooks/hooks.json (next to .claude-plugin/)."""
    hooks_dir = os.path.dirname(os.path.abspath(settings))
    root = os.path.dirname(hooks_dir)
    if os.path.basename(hooks_dir) == "hooks" and os.path.isdir(os.path.join(root, ".claude-plugin")):
        return root
    return None


def source(agent: str):  # type: ignore[no-untyped-def]
    """The agent's :class:`hookd.agents.import_source.Source` (its importer, imported only for it)."""
    import importlib

    module, _, name = SOURCES[agent].partition(":")
    return getattr(importlib.import_module(module), name)


def run(args: argparse.Namespace) -> int:
    import yaml

    from hookd.agents import import_move, import_source, settings_file

    src = source(args.agent)
    if args.undo:
        try:
            done = src.undo(args.settings)
            for line in done:
                sys.stderr.write(f"hookd: {line}\n")
        except (import_move.MoveError, OSError) as exc:
            return fail(str(exc))
        return report(args, {"settings": args.settings, "undone": True, "messages": list(done)})
    plugin_root = os.path.abspath(args.plugin_root) if args.plugin_root else plugin_root_of(args.settings)
    moving = bool(args.output) and not args.keep
    ask = import_source.Ask(args.agent, args.settings, moving, args.hookd or settings_file.default_hookd(), plugin_root)
    try:
        result, original = src.read(ask)
    except import_source.ImportFailed as exc:
        return fail(str(exc))
    lines = [f"# hookd hooks imported from {os.path.abspath(args.settings)} by `hookd import {args.agent}`.", src.how]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    moved_to = None
    if not args.output:
        if not args.json:
            sys.stdout.write(text)
    else:
        if src.fresh and not args.keep and os.path.lexists(args.settings + import_move.SAVED):
            return fail(
                f"{args.settings + import_move.SAVED} exists: an earlier import from this file was not undone; run "
                f"`hookd import {args.agent} --undo {args.settings}` first (or pass --keep)"
            )
        try:
            os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
            with open(args.output, "x", encoding="utf-8") as f:
                f.write(text)
        except FileExistsError:
            return fail(f"{args.output} exists; -o never overwrites: choose another file or merge by hand")
        except OSError as exc:
            return fail(f"cannot write {args.output}: {exc.strerror or exc}")
        sys.stderr.write(f"hookd: wrote {plural(len(result.hooks), 'hook')} to {args.output}\n")
        if result.taken and moving:
            try:
                moved_to, said = src.move(ask, original, result, args.output, text)
            except (import_move.MoveError, OSError, ValueError) as exc:
                os.unlink(args.output)
                return fail(f"{exc}; {args.output} was not kept")
            sys.stderr.write(f"hookd: {said}\n")
    for note in result.notes:
        sys.stderr.write(f"hookd: note: {note}\n")
    return report(
        args,
        {
            "settings": args.settings,
            "hooks": result.hooks,
            "notes": list(result.notes),
            "output": args.output,
            "yaml": text,
            "moved": moved_to is not None,
            "original_kept_in": moved_to,
        },
    )


def report(args: argparse.Namespace, what: dict[str, object]) -> int:
    """With --json, what an import (or its undo) did, as one JSON object on stdout."""
    if args.json:
        from hookd.cli.common import print_json

        print_json({"agent": args.agent, **what})
    return 0
