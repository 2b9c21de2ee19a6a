"""`hookd check`: validate hook files without a daemon."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

FORMATS = ("full", "concise", "json", "github")


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "check",
        help="validate hook files (--fix: apply the fixes that leave no choice)",
        description="Validate hook files and print each problem as FILE:LINE:COLUMN: hook, field, what is wrong "
        "and, where obvious, what to write instead, then the line of the file with a caret under the spot. "
        "A file under the current directory is named relative to it, as ruff does; any other by its absolute path. "
        "Without FILE: the global files and the project files of --project (default: the current directory), "
        "each hooks.yaml and the hooks.d/*.yaml beside it. --fix rewrites each file with the fixes that leave no "
        "choice (a misspelt field or value with one known name close to it, a value to quote as written...), "
        "in place and in one rename, comments and layout kept. Exit status 0 when everything is valid "
        "(after the fixes, with --fix), 1 otherwise.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="hook files to check (default: the global and project files)")
    p.add_argument("--project", "-p", metavar="DIR", help="project whose hook files to check (default: the current directory)")
    p.add_argument(
        "--fix",
        action="store_true",
        help="apply the fixes that leave no choice to the files, then report what was fixed and what is left",
    )
    p.add_argument(
        "--output-format",
        choices=FORMATS,
        default=None,
        metavar="FORMAT",
        help="full (default: each problem, its line and a caret), concise (one line each, as --no-source), "
        "json (as --json), github (GitHub Actions annotations: ::error file=PATH,line=L,col=C::message)",
    )
    p.add_argument("--json", action="store_true", help="print JSON: {valid, files, problems} (and fixed, with --fix)")
    p.add_argument("--no-source", action="store_true", help="problems only, without the source line and caret")
    p.set_defaults(run=run)


def _default_files(project: str) -> list[str]:
    from hookd.config import userconfig

    return [f for f in [*userconfig.global_files(), *userconfig.project_files(project)] if os.path.exists(f)]


def check(files: list[str]) -> tuple[list[dict[str, Any]], list[Any]]:
    """(per-file reports, problems) for ``files``.

    Names must be unique across the files of one scope. Which file keeps a name two files define is
    the daemon's rule (hookd/config/hooknames.py), applied to the same state: the files of each scope are
    loaded in the daemon's order, with the versions it last accepted (kept in the state directory),
    so `check` rejects the file the daemon rejects, with the same words. A file named here that no
    scope lists (``hookd check /tmp/draft.yaml``) is checked with the other such files of its
    directory, in name order.
    """
    from hookd.config import trust, userconfig
    from hookd.config.accepted import AcceptedStore
    from hookd.config.hooknames import settle
    from hookd.config.validator import Problem

    store = trust.TrustStore(trust_all=trust.trust_all_from_env())
    store.load()
    kept_store = AcceptedStore()
    reports: list[dict[str, Any]] = []
    problems: list[Problem] = []
    loaded: dict[str, Any] = {}  # the path the scope lists -> HookFile, or its problems
    current: dict[str, Any] = {}
    named: list[tuple[str, str, str, str]] = []  # (given path, scope, owner, path as the scope lists it)
    orders: dict[tuple[str, str], list[str]] = {}
    loose: dict[tuple[str, str], list[str]] = {}
    for path in files:
        scope, owner = userconfig.scope_of(path)
        key = (scope, owner)
        if key not in orders:
            orders[key] = _scope_files(scope, owner)
        listed = {os.path.realpath(p): p for p in orders[key]}
        real = os.path.realpath(path)
        if real in listed:
            named.append((path, scope, owner, listed[real]))
        else:
            named.append((path, scope, owner, path))
            loose.setdefault(key, []).append(path)
    settled: dict[str, Any] = {}
    scopes = [(order, True) for order in orders.values()] + [(sorted(paths), False) for paths in loose.values()]
    for order, listed_by_scope in scopes:
        kept: dict[str, list[str]] = {}
        present: list[str] = []
        for p in order:
            if p not in loaded:
                loaded[p] = _read(p)
            if loaded[p] is None:
                continue  # absent: nothing of it loads
            present.append(p)
            current[p] = loaded[p] if isinstance(loaded[p], list) else [spec.name for spec in loaded[p].specs]
            if listed_by_scope and kept_store.kept(p) is not None:
                kept[p] = sorted(kept_store.claimed(p))
        settled.update(settle(present, current, kept))
    for path, scope, owner, listed_as in named:
        report: dict[str, Any] = {"file": path, "scope": scope, "project": owner or None, "hooks": 0, "valid": True}
        reports.append(report)
        got = loaded.get(listed_as)
        if got is None:
            problems.append(Problem(path, "no such file"))
            report["valid"] = False
            continue
        if isinstance(got, list):
            problems += got
            report["valid"] = False
            continue
        report["hooks"] = len(got.specs)
        report["names"] = [spec.name for spec in got.specs]
        verdict = store.verdict(scope, path, got.sha256, owner)
        report["trusted"], report["trust"] = verdict.trusted, verdict.reason
        outcome = settled.get(listed_as)
        if outcome is not None and outcome.problems:
            problems += outcome.problems
            report["valid"] = False
    return reports, problems


def _scope_files(scope: str, owner: str) -> list[str]:
    """The files of a scope in the daemon's load order (a project's without the global ones, as the daemon has them)."""
    from hookd.config import userconfig

    if scope == "global":
        return userconfig.global_files()
    own = {os.path.realpath(p) for p in userconfig.global_files()}
    return [p for p in userconfig.project_files(owner) if os.path.realpath(p) not in own]


def _read(path: str) -> Any:
    """The HookFile at ``path``, its problems (a list), or None when it does not exist."""
    from hookd.config import userconfig

    try:
        return userconfig.read(path)
    except userconfig.ConfigInvalid as exc:
        return exc.problems


def shown(path: str, cwd: str | None = None) -> str:
    """``path`` as ruff names a file: relative to the current directory when it is under it, else as it is (absolute)."""
    base = (cwd or os.getcwd()).rstrip(os.sep) + os.sep
    return path[len(base) :] if path.startswith(base) else path


def run(args: argparse.Namespace) -> int:
    import dataclasses

    project = os.path.abspath(args.project or os.getcwd())
    named = [os.path.abspath(f) for f in args.files] or _default_files(project)
    files: list[str] = []
    seen: set[str] = set()
    for f in named:  # once each: in the home directory ~/.codingcode/hooks.yaml is both global and "project"
        if os.path.realpath(f) not in seen:
            seen.add(os.path.realpath(f))
            files.append(f)
    fixed: list[Any] = []
    unwritten: list[Any] = []
    if args.fix:
        for path in files:
            done, error = fix_file(path)
            fixed += done
            if error is not None:
                unwritten.append(error)
    reports, problems = check(files)
    problems = unwritten + problems
    valid = not problems
    style = "json" if args.json else args.output_format or ("concise" if args.no_source else "full")
    if style == "json":
        out: dict[str, Any] = {"valid": valid, "files": reports, "problems": [_as_dict(p) for p in problems]}
        if args.fix:
            out["fixed"] = [_as_dict(p) for p in fixed]
        from hookd.cli.common import print_json

        print_json(out)
        return 0 if valid else 1
    if style == "github":
        for p in fixed:
            sys.stdout.write(github(p, "notice", f"fixed: {_change(p)}"))
        for p in problems:
            sys.stdout.write(github(p))
        return 0 if valid else 1
    if not files:
        sys.stdout.write(
            "no hook files found (global: ~/.codingcode/hooks.yaml, $XDG_CONFIG_HOME/hookd/hooks.yaml; "
            f"project: {project}/.codingcode/hooks.yaml, {project}/.hookd/hooks.yaml)\n"
        )
        return 0
    cwd = os.getcwd()
    for p in fixed:
        sys.stdout.write(f"{dataclasses.replace(p, file=shown(p.file, cwd)).where}: fixed: {_change(p)}\n")
    lines: dict[str, list[str]] = {}
    for problem in problems:
        sys.stdout.write(f"{dataclasses.replace(problem, file=shown(problem.file, cwd))}\n")
        if style == "full" and problem.line is not None:
            if problem.file not in lines:
                lines[problem.file] = _lines(problem.file)
            sys.stdout.write(snippet(lines[problem.file], problem.line, problem.column))
    bad = {p.file for p in problems}
    for r in reports:
        if r["file"] in bad:
            continue
        line = f"{shown(r['file'], cwd)}: ok, {r['hooks']} hook{'s' if r['hooks'] != 1 else ''}"
        if r.get("names"):
            line += f" ({', '.join(r['names'])})"
        if r.get("trusted") is False:
            line += f"; {r['trust']}"
        sys.stdout.write(line + "\n")
    summary = []
    if args.fix:
        summary.append(f"{len(fixed)} fixed")
    if problems:
        summary.append(f"{_count(len(problems), 'problem')} {'left ' if args.fix else ''}in {_count(len(bad), 'file')}")
        fixable = sum(1 for p in problems if p.fix is not None)
        if fixable and not args.fix:
            summary.append(f"{fixable} fixable with `hookd check --fix`")
    elif args.fix:
        summary.append("no problem left")
    if summary:
        sys.stdout.write(", ".join(summary) + "\n")
    return 0 if valid else 1


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _as_dict(problem: Any) -> dict[str, Any]:
    return {**problem.to_dict(), "fix": problem.fix.to_dict() if problem.fix is not None else None}


def _change(problem: Any) -> str:
    """A fixed problem in words: its hook and field, and what was written in place of what."""
    parts = [f"hook {problem.hook!r}"] if problem.hook else []
    if problem.field:
        parts.append(f"field {problem.field!r}")
    return ": ".join([*parts, f"{problem.fix.old} -> {problem.fix.new}"])


def fix_file(path: str) -> tuple[list[Any], Any]:
    """Apply the fixes of the file at ``path`` in place: (the problems fixed, a problem when it could not be written).

    The fixes are computed from the file's bytes as they are when it is rewritten, under a lock and in
    one rename (hookd/agents/safe_write.py): an edit made meanwhile is never lost, a reader never sees
    half a file, a symlinked file is written at its target and keeps its mode."""
    from hookd.agents import safe_write
    from hookd.config import fixes
    from hookd.config.problems import Problem

    done: list[Any] = []

    def compute(current: bytes | None) -> object:
        done.clear()
        if current is None:
            return safe_write.UNCHANGED
        try:
            text = current.decode("utf-8")
        except UnicodeDecodeError:
            return safe_write.UNCHANGED  # check says why
        result = fixes.fix(text, path)
        if not result.fixed:
            return safe_write.UNCHANGED
        done.extend(result.fixed)
        return result.text.encode("utf-8")

    if not os.path.isfile(path):
        return [], None  # absent or not a file: check says so
    try:
        safe_write.update(path, compute)
    except (OSError, safe_write.Busy) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return [], Problem(path, f"cannot write the fixes: {reason}; the file is unchanged")
    return list(done), None


def _escape(text: str, prop: bool = False) -> str:
    """Text for a GitHub Actions workflow command: % and line breaks escaped, and in a property , and : too."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def github(problem: Any, level: str = "error", message: str | None = None) -> str:
    """One problem as a GitHub Actions annotation: ``::error file=PATH,line=L,col=C::message``."""
    props = [f"file={_escape(shown(problem.file), prop=True)}"]
    if problem.line is not None:
        props.append(f"line={problem.line}")
        if problem.column is not None:
            props.append(f"col={problem.column}")
    return f"::{level} {','.join(props)}::{_escape(message if message is not None else problem.what)}\n"


def _lines(path: str) -> list[str]:
    from hookd.config import hookfile

    try:
        data = hookfile.read_bytes(path)
    except (OSError, hookfile.Unreadable):
        return []
    return (data or b"").decode("utf-8", "replace").splitlines()


def snippet(lines: list[str], line: int, column: int | None) -> str:
    """The line at fault and a caret under the column, as ruff and rustc show them ("" when out of range)."""
    from wcwidth import wcwidth

    from hookd.core.termsafe import one_line

    if not 1 <= line <= len(lines):
        return ""
    raw = lines[line - 1]
    shown = one_line(raw.expandtabs(8))
    gutter = f"{line:>4} | "
    out = f"{gutter}{shown}\n"
    if column is not None and column >= 1:
        # Cells up to the column as the terminal shows them: a wide character takes two, an escaped one its escape.
        before = one_line(raw[: column - 1].expandtabs(8))
        offset = sum(max(0, wcwidth(ch)) for ch in before)
        out += f"{'':>4} | {' ' * offset}^\n"
    return out
