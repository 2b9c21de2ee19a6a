"""Helpers shared by the client-side subcommands."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import msgspec


def add_socket(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--socket", metavar="PATH", help="daemon socket (default: see `hookd --help`)")


def add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session", "-s", metavar="ID", help="session id the call belongs to")
    parser.add_argument("--project", "-p", metavar="DIR", help="project directory (its hooks apply)")


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
    from .termsafe import json_text

    # json escapes C0 controls; json_text escapes DEL, C1 and bidi controls, so the text stays valid JSON.
    sys.stdout.write(json_text(json.dumps(msgspec.to_builtins(value), indent=2, ensure_ascii=False)) + "\n")


def connect(args: argparse.Namespace) -> Any:
    from hookd_client import Client

    return Client(args.socket, name="hookd-cli")
