"""`hookd import codex FILE [-o OUT] [--keep | --undo]`, called from hookd/cli/importer.py."""

from __future__ import annotations

import argparse
import os
import sys

from hookd.agents import import_move
from hookd.agents.codex import importer


def run(args: argparse.Namespace) -> int:
    import yaml

    from hookd.cli.common import fail, plural

    path = args.settings
    if args.undo:
        try:
            for line in import_move.undo(path):
                sys.stderr.write(f"hookd: {line}\n")
        except (import_move.MoveError, OSError) as exc:
            return fail(str(exc))
        return 0
    try:
        with open(path, "rb") as f:
            original = f.read()
        doc = importer.load(original, os.path.basename(path))
    except OSError as exc:
        return fail(f"cannot read {path}: {exc.strerror or exc}")
    except importer.ImportFileError as exc:
        return fail(str(exc))
    result = importer.convert(doc, os.path.basename(path))
    lines = [
        f"# hookd hooks imported from {os.path.abspath(path)} by `hookd import codex`.",
        "# format: claude-code runs each command with the agent's hook input, its exit code 2 or JSON read as the "
        "answer; the decision hooks combine strictest, as in Codex (any deny wins).",
    ]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    if not args.output:
        sys.stdout.write(text)
    else:
        if not args.keep and os.path.lexists(path + import_move.SAVED):
            return fail(
                f"{path + import_move.SAVED} exists: an earlier import was not undone; run `hookd import codex --undo {path}` first"
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
                if path.endswith(".json"):
                    saved = import_move.move(path, original, result.taken, args.output, text)
                    how = "moved them out of"
                else:
                    saved, notes = importer.move_toml(path, original, result.taken, args.output, text)
                    result.notes.extend(notes)
                    how = "turned them off in Codex (`enabled = false` under [hooks.state]) in"
            except (import_move.MoveError, OSError, ValueError) as exc:
                os.unlink(args.output)
                return fail(f"{exc}; {args.output} was not kept")
            sys.stderr.write(f"hookd: {how} {path} (the original is kept in {saved}; `hookd import codex --undo {path}` puts it back)\n")
    for note in result.notes:
        sys.stderr.write(f"hookd: note: {note}\n")
    return 0
