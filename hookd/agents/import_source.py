"""How `hookd import AGENT FILE` reads an agent's hooks and takes them out of the agent's way, as one row an agent.

hookd/cli/importer.py does the same for every agent: read, write the YAML (or print it), move the originals
aside so that they do not run twice, put them back with --undo. What differs is a :class:`Source`: how the
file is read into hookd hooks (``read``), how the imported hooks are moved aside (``move``: rewritten out
of a settings file, turned off in a config.toml, a whole hook file renamed), and how that is undone. Each
agent's importer module holds its row; the agents whose hooks sit in a JSON settings file in Claude Code's
layout make theirs with :func:`settings_source`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from hookd.agents import import_move
from hookd.agents.importer import Imported


class ImportFailed(Exception):
    """The file cannot be imported; the message says why, for the user."""


class Ask(NamedTuple):
    """One `hookd import` of ``path``."""

    agent: str
    path: str
    moving: bool  # the imported hooks will be moved out of the agent's way (-o without --keep)
    hookd: str  # the hookd command the imported hooks run, where they run through hookd's adapter
    plugin_root: str | None = None  # Claude Code: the plugin directory, for ${CLAUDE_PLUGIN_ROOT}


class Source(NamedTuple):
    how: str  # the comment line that says how the imported hooks run
    # the file's hooks as hookd hooks, and the file's bytes as read; raises ImportFailed
    read: Callable[[Ask], tuple[Imported, bytes | None]]
    # (the import, the file's bytes, the hooks, the YAML written, its text) -> (where the original is kept, what was
    # done, for the user); raises import_move.MoveError, OSError, ValueError (nothing moved)
    move: Callable[[Ask, bytes | None, Imported, str, str], tuple[str, str]]
    undo: Callable[[str], list[str]] = import_move.undo  # raises import_move.MoveError, OSError
    fresh: bool = True  # an earlier import's saved original must be undone before the file is moved again


def read_settings(path: str) -> tuple[dict[str, Any], bytes]:
    """A JSON settings file, and its bytes. Raises ImportFailed."""
    try:
        with open(path, "rb") as f:
            original = f.read()
        settings = json.loads(original.decode("utf-8"))
    except OSError as exc:
        raise ImportFailed(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise ImportFailed(f"{path} is not valid JSON: {exc}") from None
    if not isinstance(settings, dict):
        raise ImportFailed(f"{path} must hold a JSON object")
    return settings, original


def read_bytes(path: str) -> bytes:
    """The file's bytes. Raises ImportFailed."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise ImportFailed(f"cannot read {path}: {exc.strerror or exc}") from None


def kept(ask: Ask, saved: str, done: str) -> tuple[str, str]:
    return saved, f"{done} {ask.path} (the original is kept in {saved}; `hookd import {ask.agent} --undo {ask.path}` puts it back)"


def load_file(path: str, load: Callable[[bytes, str], Any], errors: type[Exception]) -> tuple[Any, bytes]:
    """``load(the file's bytes, its name)``, and the bytes; ``errors`` (what ``load`` raises) and an unreadable
    file become ImportFailed."""
    original = read_bytes(path)
    try:
        return load(original, os.path.basename(path)), original
    except errors as exc:
        raise ImportFailed(str(exc)) from None


def moved_out(ask: Ask, original: bytes | None, result: Imported, output: str, text: str) -> tuple[str, str]:
    """Rewrite the settings file without the imported hooks (its original kept beside it)."""
    return kept(ask, import_move.move(ask.path, original or b"", result.taken, output, text), "moved them out of")


def settings_source(how: str, convert: Callable[[Mapping[str, Any], str, Ask], Imported]) -> Source:
    """The row of an agent whose hooks sit in a JSON settings file, moved out by rewriting it."""

    def read(ask: Ask) -> tuple[Imported, bytes | None]:
        settings, original = read_settings(ask.path)
        return convert(settings, os.path.basename(ask.path), ask), original

    return Source(how, read, moved_out)
