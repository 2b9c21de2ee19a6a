"""`hookd import codex FILE`: the command hooks of a Codex config.toml (or hooks.json) as hookd YAML hooks.

Codex's hooks have Claude Code's shape (`hooks.EVENT` -> matcher groups -> handlers), so the one importer
(hookd/agents/importer.py) reads them with Codex's table (``RULES``): each command hook becomes one hookd
command hook with ``format: claude-code``: the daemon runs the hook's own command itself, with the agent's
hook input on stdin (the Codex bridge sends Codex's fields, `turn_id` and `model` included, so the hook gets
exactly what Codex would give it), its exit code 2 + stderr or its JSON read as the block, on the point the
Codex bridge maps the event to. The decision hooks of one file form one group combined ``strictest``: Codex
starts every matching hook at once and any deny wins.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from typing import Any

from hookd.agents import import_move, import_source, importer
from hookd.agents.codex.install import SHORT_EVENTS, is_ours_command
from hookd.agents.codex.protocol import DIALECT, MATCHER_FIELDS
from hookd.agents.importer import MAX_TIMEOUT, Imported

GROUP = "codex"
DEFAULT_TIMEOUT = 600  # Codex's default for a command hook, in seconds


class ImportFileError(ValueError):
    """The file cannot be read as Codex hooks; the message says why."""


def load(data: bytes, name: str) -> dict[str, Any]:
    """The hooks document of a config.toml, or of a hooks.json (same shape, JSON)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFileError(f"{name} is not UTF-8: {exc}") from None
    try:
        doc = json.loads(text) if name.endswith(".json") else tomllib.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise ImportFileError(f"{name} is not valid {'JSON' if name.endswith('.json') else 'TOML'}: {exc}") from None
    if not isinstance(doc, dict):
        raise ImportFileError(f"{name} must hold an object")
    return doc


def point_for(event: str) -> tuple[str, str]:
    return importer.point_for(event, DIALECT)


def is_ours(group: Any) -> bool:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return (
        isinstance(handlers, list)
        and len(handlers) == 1
        and isinstance(handlers[0], dict)
        and is_ours_command(str(handlers[0].get("command", "")))
    )


def convert(doc: Mapping[str, Any], source: str) -> Imported:
    """The hookd hooks for every command hook in ``doc``; other handler types are listed in notes."""
    return importer.convert_with(RULES, doc, source)


def _hook(rules: importer.Rules, h: importer.Handler) -> dict[str, Any]:
    """A Codex handler, as Claude Code's but: its `command` always through the shell (Codex has no `args`), no
    `if` rules, `async` only when exactly true, and whole seconds clamped where Codex clamps them."""
    handler = {k: v for k, v in h.handler.items() if k not in ("args", "if", "async", "timeout")}
    if h.handler.get("async") is True:
        handler["async"] = True
    hook = importer.claude_hook(rules, h._replace(handler=handler, plugin_root=None))
    timeout = h.handler.get("timeout")
    seconds = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout > 0 else DEFAULT_TIMEOUT
    hook["timeout"] = min(seconds, SHORT_EVENTS.get(h.event, MAX_TIMEOUT), MAX_TIMEOUT)
    return hook


# "state" holds Codex's own trust records, not hooks.
RULES = importer.Rules(
    DIALECT, "Codex", "codex", GROUP, MATCHER_FIELDS, is_ours, _hook, skip=frozenset({"state"}), plugin_root=False, no_hooks="hooks table"
)


def _snake(event: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in event).lstrip("_")


def disable_in_toml(text: str, path: str, taken: list[tuple[str, int, int]]) -> tuple[str, list[tuple[str, int, int]], list[str]]:
    """``text`` (a config.toml) with Codex's own switch off for each imported hook: `[hooks.state."KEY"]
    enabled = false`, as Codex's /hooks writes it when a person disables a hook. The user's bytes are kept:
    new records are appended in one block; a hook that already has a record gets the line under its header.
    Returns (new text, the hooks now disabled, notes)."""
    state = tomllib.loads(text).get("hooks", {}).get("state", {})
    state = state if isinstance(state, dict) else {}
    source = os.path.abspath(path)
    appended: list[str] = []
    done: list[tuple[str, int, int]] = []
    notes: list[str] = []
    for event, gi, hi in taken:
        key = f"{source}:{_snake(event)}:{gi}:{hi}"
        header = f"[hooks.state.{json.dumps(key)}]\n"
        record = state.get(key)
        if record is None:
            appended.append(header + "enabled = false\n")
        elif isinstance(record, dict) and record.get("enabled") is False:
            pass  # already off in Codex
        elif isinstance(record, dict) and "enabled" not in record and text.count(header) == 1:
            at = text.index(header) + len(header)
            text = text[:at] + "enabled = false\n" + text[at:]
        else:
            notes.append(
                f"{event} hook {gi}:{hi}: its state in {path} could not be changed; disable it in Codex's /hooks, or it runs twice"
            )
            continue
        done.append((event, gi, hi))
    if appended:
        sep = "" if not text else "\n" if text.endswith("\n") else "\n\n"
        text += sep + DISABLED_NOTE + "\n".join(appended)
    return text, done, notes


DISABLED_NOTE = "# Imported into hookd by `hookd import codex`: Codex no longer runs these (`hookd import codex --undo` restores).\n"


def move_toml(
    path: str, original: bytes, taken: list[tuple[str, int, int]], written: str | None, written_text: str
) -> tuple[str, list[str]]:
    """Turn the imported hooks off in the config.toml (Codex's `enabled = false`), keeping its original bytes
    beside it for `--undo` (the same files `hookd import claude-code` keeps). Returns (saved copy, notes)."""
    saved = path + import_move.SAVED
    if os.path.lexists(saved):
        raise import_move.MoveError(
            f"{saved} exists: an earlier import from this file was not undone; run `hookd import codex --undo {path}` first"
        )
    new, done, notes = disable_in_toml(original.decode("utf-8"), path, taken)
    off = tomllib.loads(new).get("hooks", {}).get("state", {})
    for event, gi, hi in done:
        if off.get(f"{os.path.abspath(path)}:{_snake(event)}:{gi}:{hi}", {}).get("enabled") is not False:
            raise import_move.MoveError(f"could not turn the imported {event} hook off in {path}; nothing was changed")
    return import_move.keep_and_replace(path, original, new.encode("utf-8"), written, written_text, os.path.realpath(path)), notes


def _read(ask: import_source.Ask) -> tuple[Imported, bytes | None]:
    doc, original = import_source.load_file(ask.path, load, ImportFileError)
    return convert(doc, os.path.basename(ask.path)), original


def _move(ask: import_source.Ask, original: bytes | None, result: Imported, output: str, text: str) -> tuple[str, str]:
    """hooks.json: rewritten without them; config.toml: each turned off under [hooks.state]. Raises ValueError too."""
    if ask.path.endswith(".json"):
        return import_source.moved_out(ask, original, result, output, text)
    saved, notes = move_toml(ask.path, original or b"", result.taken, output, text)
    result.notes.extend(notes)
    return import_source.kept(ask, saved, "turned them off in Codex (`enabled = false` under [hooks.state]) in")


# `hookd import codex FILE`: Codex's row for the one import command (hookd/cli/importer.py).
SOURCE = import_source.Source(
    "# format: claude-code runs each command with the agent's hook input, its exit code 2 or JSON read as the answer; the "
    "decision hooks combine strictest, as in Codex (any deny wins).",
    _read,
    _move,
)
