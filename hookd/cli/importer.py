"""`hookd import claude-code SETTINGS.json`: move an agent's existing hooks under hookd."""

from __future__ import annotations

import argparse
import json
import os
import sys

from hookd.cli.common import fail, plural


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
    p.add_argument(
        "agent",
        choices=("claude-code", "codex", "gemini", "qwen", "droid", "copilot", "cline"),
        help="the agent whose settings format SETTINGS uses",
    )
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


def run(args: argparse.Namespace) -> int:
    if args.agent in ("copilot", "cline"):
        import importlib

        return int(importlib.import_module(f"hookd.cli.bridge_{args.agent}").run_import(args))
    if args.agent == "codex":
        from hookd.cli.import_codex import run as import_codex

        return import_codex(args)
    import yaml

    from hookd.agents import import_move
    from hookd.agents.importer import convert

    if args.undo:
        try:
            done = import_move.undo(args.settings)
            for line in done:
                sys.stderr.write(f"hookd: {line}\n")
        except (import_move.MoveError, OSError) as exc:
            return fail(str(exc))
        return report(args, {"settings": args.settings, "undone": True, "messages": list(done)})
    try:
        with open(args.settings, "rb") as f:
            original = f.read()
        settings = json.loads(original.decode("utf-8"))
    except OSError as exc:
        return fail(f"cannot read {args.settings}: {exc.strerror or exc}")
    except (UnicodeDecodeError, ValueError) as exc:
        return fail(f"{args.settings} is not valid JSON: {exc}")
    if not isinstance(settings, dict):
        return fail(f"{args.settings} must hold a JSON object")
    how = "# format: claude-code runs each command as Claude Code would; the decision hooks combine strictest, as in Claude Code."
    if args.agent == "claude-code":
        plugin_root = os.path.abspath(args.plugin_root) if args.plugin_root else plugin_root_of(args.settings)
        result = convert(settings, os.path.basename(args.settings), plugin_root=plugin_root)
    elif args.agent == "droid":
        from hookd.agents.droid import importer as droid

        result = droid.convert(settings, os.path.basename(args.settings))
        how = "# format: claude-code runs each command as Factory Droid would (it kept Claude Code's format); decisions combine strictest."
    else:
        from hookd.agents.gemini.importer import convert_for

        result, how = convert_for(args.agent, settings, os.path.basename(args.settings))
    lines = [f"# hookd hooks imported from {os.path.abspath(args.settings)} by `hookd import {args.agent}`.", how]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    moved_to = None
    if not args.output:
        if not args.json:
            sys.stdout.write(text)
    else:
        if not args.keep and os.path.lexists(args.settings + import_move.SAVED):
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
        if result.taken and not args.keep:
            try:
                saved = import_move.move(args.settings, original, result.taken, args.output, text)
            except (import_move.MoveError, OSError) as exc:
                os.unlink(args.output)
                return fail(f"{exc}; {args.output} was not kept")
            moved_to = saved
            sys.stderr.write(
                f"hookd: moved them out of {args.settings} (the original is kept in {saved}; "
                f"`hookd import {args.agent} --undo {args.settings}` puts it back)\n"
            )
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
