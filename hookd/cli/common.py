"""Helpers shared by the client-side subcommands."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from typing import Any

import msgspec

# Exit codes, the same for every command (docs/cli.md): a script can tell "the daemon is down"
# from "you named something that does not exist" from "the call failed".
OK = 0
ERROR = 1  # the call failed, a file is invalid, a guard denied (where a command says so)
USAGE = 2  # bad arguments or options, as argparse
UNREACHABLE = 3  # no daemon answers on the socket, or the socket path cannot be one
NOT_FOUND = 4  # an unknown point, hook, session, topic...

_UNREACHABLE_CODES = {"not_running", "bad_socket_path", "untrusted_daemon", "connection_lost", "shutting_down"}
_NOT_FOUND_CODES = {"unknown_point", "not_found"}


def exit_code_of(exc: Any) -> int:
    """The exit code for a client error (a HookdError)."""
    code = getattr(exc, "code", "")
    if code in _UNREACHABLE_CODES:
        return UNREACHABLE
    if code in _NOT_FOUND_CODES:
        return NOT_FOUND
    return ERROR


def error_text(exc: Any) -> str:
    """What to print for a client error: the message alone when it says everything."""
    code = getattr(exc, "code", "")
    return str(exc.message) if code in _UNREACHABLE_CODES or code in _NOT_FOUND_CODES else str(exc)


def call(args: argparse.Namespace, method: str, *pos: object, **kw: object) -> Any:
    """One request on a fresh connection; a failure exits with its message and exit code."""
    from hookd_client import HookdError

    try:
        with connect(args) as client:
            return getattr(client, method)(*pos, **kw)
    except HookdError as exc:
        raise SystemExit(fail(error_text(exc), exit_code_of(exc))) from None


def add_socket(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--socket", metavar="PATH", help="daemon socket (default: see `hookd --help`)")


def add_json(parser: argparse.ArgumentParser, what: str = "print JSON") -> None:
    parser.add_argument("--json", action="store_true", help=what)


def add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", "-s", metavar="ID", help="session id the call belongs to")
    parser.add_argument("--project", "-p", metavar="DIR", help="project directory (its hooks apply)")


def add_cwd_target(parser: argparse.ArgumentParser) -> None:
    """--session, and the project as `check` and `doctor` take it: --project, else the current directory;
    --global for the global hooks alone."""
    parser.add_argument("--session", "-s", metavar="ID", help="session id the call belongs to (without --project: its project)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--project", "-p", metavar="DIR", help="project directory whose hooks apply (default: the current directory, as check and doctor)"
    )
    where.add_argument("--global", dest="global_only", action="store_true", help="no project's hooks: the global ones only")


def cwd_project(args: argparse.Namespace) -> str | None:
    """The project of a call made by `decide` or `explain`: --project; else, without --session, the
    current directory, as `check` and `doctor` take it; None with --global, or with --session alone
    (the daemon then takes the session's own project, as its agent's calls have it).
    ValueError for a --project that is not a directory, or --global with --session."""
    if args.project is not None:
        return project_dir(args.project)
    if args.global_only:
        if args.session is not None:
            raise ValueError("--global and --session cannot go together: a session's calls have its own project's hooks")
        return None
    if args.session is not None:
        return None
    try:
        return os.path.abspath(os.getcwd())
    except FileNotFoundError:
        raise ValueError("the current directory no longer exists: name the project with --project, or use --global") from None


def project_dir(path: str | None) -> str | None:
    """--project as the absolute directory it names; ValueError when there is no such directory
    (a misspelt project would otherwise leave its guards silently out of the call)."""
    if path is None:
        return None
    full = os.path.abspath(os.path.expanduser(path))
    try:
        is_dir = stat.S_ISDIR(os.stat(full).st_mode)
    except FileNotFoundError:
        raise ValueError(f"--project {path}: {full} does not exist") from None
    except OSError as exc:
        raise ValueError(f"--project {path}: {full} cannot be read: {exc.strerror}") from None
    if not is_dir:
        raise ValueError(f"--project {path}: {full} is not a directory")
    return full


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``count`` and its noun, singular for one: "1 hook", "2 hooks" (``nouns`` where adding s is wrong)."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def fail(message: str, code: int = 1) -> int:
    sys.stderr.write(f"hookd: {message}\n")
    return code


def read_payload(text: str | None) -> dict[str, Any]:
    """The --payload argument: JSON text, '-' for stdin, nothing for {}."""
    if text is None:
        return {}
    raw = sys.stdin.read() if text == "-" else text
    try:
        value = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"--payload is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"--payload must be a JSON object, got {type(value).__name__}")
    return value


def print_json(value: Any) -> None:
    from hookd.core.termsafe import json_text

    # json escapes C0 controls; json_text escapes DEL, C1 and bidi controls, so the text stays valid JSON.
    sys.stdout.write(json_text(json.dumps(msgspec.to_builtins(value), indent=2, ensure_ascii=False)) + "\n")


def connect(args: argparse.Namespace) -> Any:
    from hookd_client import Client

    return Client(args.socket, name="hookd-cli")
