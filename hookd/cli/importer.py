"""`hookd import claude-code SETTINGS.json`: move an agent's existing hooks under hookd."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .common import fail


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "import",
        help="convert an agent's settings hooks into hookd YAML hooks",
        description="Read the hooks of a Claude Code settings file and print them as a hookd hooks file: each command "
        "hook lands on the hookd point its event maps to (see docs/bridges.md), its matcher becomes `match`, its "
        "timeout is kept, and it runs through `hookd bridge run-hook claude-code`, which speaks Claude Code's hook "
        "format, so the script works unchanged. Review the output, then put it in ~/.config/hookd/hooks.yaml or "
        "<project>/.hookd/hooks.yaml.",
    )
    p.add_argument("agent", choices=("claude-code",), help="the agent whose settings format SETTINGS uses")
    p.add_argument("settings", metavar="SETTINGS.json", help="the settings file to read, e.g. ~/.claude/settings.json")
    p.add_argument("-o", "--output", metavar="FILE", help="write the YAML here instead of stdout (refuses to overwrite)")
    p.add_argument("--hookd", metavar="CMD", help="how hookd runs the run-hook adapter (default: this hookd's absolute path)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import shlex

    import yaml

    from hookd.bridges.importer import convert
    from hookd.bridges.settings_file import default_hookd

    try:
        with open(args.settings, encoding="utf-8") as f:
            settings = json.load(f)
    except OSError as exc:
        return fail(f"cannot read {args.settings}: {exc.strerror or exc}")
    except ValueError as exc:
        return fail(f"{args.settings} is not valid JSON: {exc}")
    if not isinstance(settings, dict):
        return fail(f"{args.settings} must hold a JSON object")
    hookd_command = shlex.split(args.hookd or default_hookd())
    result = convert(settings, os.path.basename(args.settings), hookd_command)
    lines = [
        f"# hookd hooks imported from {os.path.abspath(args.settings)} by `hookd import claude-code`.",
        "# Each hook runs its original command through `hookd bridge run-hook claude-code`.",
        "# `match` skips other tools without starting a process; run-hook --matcher applies Claude Code's exact rule too.",
    ]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    if args.output:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
            with open(args.output, "x", encoding="utf-8") as f:
                f.write(text)
        except FileExistsError:
            return fail(f"{args.output} exists; -o never overwrites: choose another file or merge by hand")
        except OSError as exc:
            return fail(f"cannot write {args.output}: {exc.strerror or exc}")
        sys.stderr.write(f"hookd: wrote {len(result.hooks)} hooks to {args.output}\n")
    else:
        sys.stdout.write(text)
    for note in result.notes:
        sys.stderr.write(f"hookd: note: {note}\n")
    return 0
