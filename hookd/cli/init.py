"""`hookd init` writes a hook file to start from; `hookd edit` edits one the way visudo edits sudoers.

`edit` opens $VISUAL (else $EDITOR, else vi) on a copy; on save the copy is
validated as the daemon would validate it. A valid copy replaces the file in
one step (a rename, so the daemon never reads it half-written); an invalid one
is shown with its problems and, on a terminal, edited again or discarded: the
file itself is never left invalid.
"""

from __future__ import annotations

import argparse
import os
import sys

from hookd.cli.common import ERROR, USAGE, fail, print_json


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "init",
        help="write a commented hooks.yaml with hookd's guards and a working command guard",
        description="Write a commented hook file to start from: hookd's own guards (`builtin: default`: destructive and "
        "secret-leaking tool calls refused in the daemon, each refusal naming its rule; `hookd help guards`), a command "
        "guard that refuses `rm -rf /` (and only that) and a logging observer, off. --shadow writes the guards in shadow "
        "mode: they run on every call and block nothing, and `hookd tail` and `hookd stats` show what they would have "
        "denied. Default: the current project's .hookd/hooks.yaml (a project file runs once you `hookd trust` it); "
        "--global: your global file. Never overwrites a file (--force does).",
    )
    p.add_argument(
        "--shadow",
        action="store_true",
        help="write the built-in guards with `shadow: true`: see what they would block before enforcing them",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--global", dest="is_global", action="store_true", help="write the global file ($XDG_CONFIG_HOME/hookd/hooks.yaml)")
    where.add_argument("--project", "-p", metavar="DIR", help="write DIR/.hookd/hooks.yaml (default: the current directory)")
    where.add_argument("--stdout", action="store_true", help="print the file instead of writing it")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON: {file, hooks, content}: the file written (null with --stdout), its hooks' names and its text",
    )
    p.set_defaults(run=run_init)

    p = sub.add_parser(
        "edit",
        help="edit a hook file, checked on save (as visudo)",
        description="Open a copy of a hook file in $VISUAL (else $EDITOR, else vi). On save the copy is checked as the "
        "daemon checks it: a valid copy replaces the file in one step; an invalid one is shown with its problems, and "
        "on a terminal you choose to edit it again or discard it. The file is never left invalid. A file that does not "
        "exist starts from `hookd init`'s. Default FILE: the global file (with --project: that project's).",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="the hook file to edit")
    p.add_argument("--project", "-p", metavar="DIR", help="edit DIR/.hookd/hooks.yaml")
    p.add_argument("--json", action="store_true", help="print JSON at the end: {file, changed, valid, problems}")
    p.set_defaults(run=run_edit)


def _target(is_global: bool, project: str | None) -> str:
    from hookd.config import userconfig

    if is_global:
        return userconfig.global_main_files()[1]
    return os.path.join(os.path.abspath(project or os.getcwd()), ".hookd", "hooks.yaml")


def run_init(args: argparse.Namespace) -> int:
    from hookd.cli.template import template

    text = template(shadow=args.shadow)
    if args.stdout:
        if args.json:
            print_json({"file": None, "hooks": _names(text), "content": text})
        else:
            sys.stdout.write(text)
        return 0
    path = _target(args.is_global, args.project)
    if os.path.lexists(path) and not args.force:
        return fail(f"{path} exists; edit it with `hookd edit {path}`, or overwrite it with --force", ERROR)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        _replace(path, text)
    except OSError as exc:
        return fail(f"cannot write {path}: {exc.strerror or exc}", ERROR)
    if args.json:
        print_json({"file": path, "hooks": _names(text), "content": text})
        return 0
    guards = "hookd's guards (guards, in shadow mode: they block nothing yet)" if args.shadow else "hookd's guards (guards, on)"
    sys.stdout.write(f"wrote {path}: {guards}, a command guard (no-rm-root, on) and an observer (log-tools, off)\n")
    if args.shadow:
        sys.stdout.write("see what the guards would have denied: hookd tail; hookd stats. Enforce them: delete `shadow: true`\n")
    if not args.is_global:
        project = os.path.dirname(os.path.dirname(path))
        sys.stdout.write(f"a project file runs once trusted: review it, then run `hookd trust {project}`\n")
    sys.stdout.write(f"check it: hookd check {path}; edit it: hookd edit {path}\n")
    return 0


def _names(text: str) -> list[str]:
    """The names of the hooks ``text`` defines, in order, read as the daemon reads the file."""
    from hookd.config import userconfig

    return [spec.name for spec in userconfig.parse(text, "hooks.yaml")]


def _replace(path: str, text: str) -> None:
    """Write ``text`` to ``path`` in one step: a reader sees the old file or the new one, never half of it."""
    import tempfile

    directory = os.path.dirname(path) or "."
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _editor() -> list[str]:
    import shlex

    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


def _problems(text: str, path: str) -> list[object]:
    from hookd.config import userconfig

    try:
        userconfig.validate(text, path)
    except userconfig.ConfigInvalid as exc:
        return list(exc.problems)
    return []


def _ask() -> str:
    """e (edit again) or x (discard), asked on the terminal; x when there is none to ask."""
    if not sys.stdin.isatty():
        return "x"
    while True:
        sys.stderr.write("What now? (e)dit again, e(x)it without saving: ")
        sys.stderr.flush()
        answer = sys.stdin.readline()
        if not answer:
            return "x"
        answer = answer.strip().lower()
        if answer in ("e", "x"):
            return answer


def run_edit(args: argparse.Namespace) -> int:
    import subprocess
    import tempfile

    from hookd.cli.check import snippet
    from hookd.cli.template import TEMPLATE

    path = os.path.abspath(args.file) if args.file else _target(not args.project, args.project)
    if os.path.isdir(path):
        return fail(f"{path} is a directory; name a hook file", USAGE)
    try:
        with open(path, encoding="utf-8") as f:
            original = f.read()
    except FileNotFoundError:
        original = None
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"cannot read {path}: {exc}", ERROR)
    start = original if original is not None else TEMPLATE
    fd, copy = tempfile.mkstemp(prefix=f"hookd-edit-{os.path.basename(path)}.", suffix=".yaml")
    result: dict[str, object] = {"file": path, "changed": False, "valid": True, "problems": []}
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(start)
        while True:
            try:
                status = subprocess.run([*_editor(), copy], check=False).returncode
            except OSError as exc:
                return fail(f"cannot start the editor {_editor()[0]!r}: {exc.strerror or exc}; set $VISUAL or $EDITOR", ERROR)
            if status != 0:
                return fail(f"the editor exited with status {status}; {path} is unchanged", ERROR)
            with open(copy, encoding="utf-8", errors="replace") as f:
                text = f.read()
            if text == original:
                sys.stderr.write(f"hookd: no changes to {path}\n")
                break
            problems = _problems(text, path)
            if not problems:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                _replace(path, text)
                result["changed"] = True
                if not args.json:
                    sys.stdout.write(f"{path}: saved, valid\n")
                break
            lines = text.splitlines()
            for problem in problems:
                sys.stderr.write(f"{problem}\n")
                line, column = getattr(problem, "line", None), getattr(problem, "column", None)
                if line is not None:
                    sys.stderr.write(snippet(lines, line, column))
            if _ask() == "e":
                continue
            result.update(valid=False, problems=[p.to_dict() for p in problems])  # type: ignore[attr-defined]
            sys.stderr.write(f"hookd: {path} is unchanged: the edit was not valid\n")
            break
    finally:
        os.unlink(copy)
    if args.json:
        print_json(result)
    return 0 if result["valid"] else ERROR
