"""`hookd import copilot FILE`: the command hooks of a Copilot CLI hook file as hookd YAML hooks.

Each `bash` command hook becomes one hookd command hook running ``hookd bridge run-hook copilot --event EVENT --
bash -c COMMAND`` (hookd/agents/adapter.py, with hooks.py's ``FORMAT``, gives it Copilot's input, environment
and answer rules) on the point the bridge maps its event to; its `timeoutSec` (or `timeout`) carries over, its
`matcher` becomes a ``match`` on the tool's name as Copilot calls it. The decision hooks of one file form one
group combined ``strictest``: any deny wins. Moving them out of Copilot's way is renaming the file: Copilot
loads only `*.json`, so `FILE.hookd-import` is no longer read, and `--undo` renames it back. A settings.json's
inline hooks import too, but the settings file is never moved. Written against the agent dialect table (ROUTES);
the Claude Code importer's shared pieces (MAX_TIMEOUT, Imported, slug) are reused."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import import_move, import_source
from hookd.agents.copilot.install import MARK
from hookd.agents.copilot.protocol import ROUTES, UNMAPPED_PREFIX
from hookd.agents.importer import MAX_TIMEOUT, Imported, match_pattern, slug
from hookd.core import points

GROUP = "copilot"
HOOK_FILE_KEYS = frozenset({"version", "hooks", "disableAllHooks"})  # what a hook file holds; anything else makes it settings
STAYS = "it stays where it is; remove the imported hooks from it by hand, or they run twice"
DEFAULT_TIMEOUT = 30  # seconds, for a hook whose file names no timeoutSec (taken as Copilot's default; not measured)


class ImportFileError(ValueError):
    """The file cannot be read as Copilot hooks; the message says why."""


def load(data: bytes, name: str) -> dict[str, Any]:
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ImportFileError(f"{name} is not a JSON hook file: {exc}") from None
    if not isinstance(doc, dict):
        raise ImportFileError(f"{name} must hold an object")
    return doc


def point_for(event: str) -> tuple[str, str]:
    point, decides = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    kind = "decision" if decides and points.lookup(point).kind == "decision" else "observer"
    return point, kind


def convert(doc: Mapping[str, Any], source: str, hookd: str) -> Imported:
    """The hookd hooks for every bash command hook in ``doc``; what is not imported is listed in notes."""
    result = Imported()
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        result.notes.append(f"{source} has no hooks object; nothing to import")
        return result
    others = sorted(k for k in doc if k not in HOOK_FILE_KEYS)
    if others:
        result.notes.append(f"{source} is a settings file ({', '.join(others[:3])}...), not a hook file: {STAYS}")
    if doc.get("disableAllHooks") is True:
        result.notes.append(f"{source} sets disableAllHooks: Copilot runs none of its hooks, and hookd imports them disabled")
    counts: dict[str, int] = {}
    for event, handlers in hooks.items():
        if not isinstance(handlers, list):
            result.notes.append(f"{event}: not a list of hooks; skipped")
            continue
        point, kind = point_for(event)
        for hi, handler in enumerate(handlers):
            command = handler.get("bash") if isinstance(handler, dict) else None
            if not isinstance(command, str) or handler.get("type", "command") != "command":
                what = json.dumps(handler)[:120]
                result.notes.append(f"{event}: {what} is not a bash command hook; it was not imported and stays in {source}")
                continue
            if MARK in command:
                continue  # hookd's own bridge
            counts[event] = counts.get(event, 0) + 1
            hook: dict[str, Any] = {
                "name": f"copilot-{slug(event)}-{counts[event]}",
                "description": f"imported from {source}: {event}: {command}",
                "point": point,
                "type": kind,
                "command": hookd,
                "args": ["bridge", "run-hook", "copilot", "--event", event, "--", "bash", "-c", command],
            }
            if kind == "decision":
                hook["group"], hook["combine"] = GROUP, "strictest"
            matcher = handler.get("matcher")
            if isinstance(matcher, str) and matcher not in ("", "*"):
                hook["match"] = {"agentToolName": match_pattern(matcher)}
            timeout = handler.get("timeoutSec", handler.get("timeout"))
            seconds = timeout if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout > 0 else DEFAULT_TIMEOUT
            hook["timeout"] = min(seconds, MAX_TIMEOUT)
            hook["enabled"] = doc.get("disableAllHooks") is not True
            result.hooks.append(hook)
            result.taken.append((event, 0, hi))
    return result


def move(path: str, imported: Imported) -> str:
    """Take the file out of Copilot's way (renamed to FILE.hookd-import), once every hook in it was imported.
    Returns the new name. Raises import_move.MoveError."""
    saved = path + import_move.SAVED
    if os.path.lexists(saved):
        raise import_move.MoveError(f"{saved} exists: an earlier import was not undone; run `hookd import copilot --undo {path}` first")
    if any(STAYS in note for note in imported.notes):
        raise import_move.MoveError(f"{path} holds settings besides its hooks, which moving it would take away: pass --keep, and {STAYS}")
    if any("not imported" in note for note in imported.notes):
        raise import_move.MoveError(
            f"{path} holds hooks hookd cannot run, which Copilot would stop running too if the file moved: pass --keep, "
            "and remove the imported hooks from it by hand"
        )
    os.rename(path, saved)
    return saved


def undo(path: str) -> list[str]:
    """Put the file back where Copilot reads it. Raises import_move.MoveError."""
    saved = path + import_move.SAVED
    if not os.path.lexists(saved):
        raise import_move.MoveError(f"no {saved}: nothing to undo")
    if os.path.lexists(path):
        raise import_move.MoveError(f"{path} exists again: move it away, then undo")
    os.rename(saved, path)
    return [f"{path} is back: Copilot runs its hooks again; remove the hookd hooks imported from it, or they run twice"]


def _read(ask: import_source.Ask) -> tuple[Imported, bytes | None]:
    doc, data = import_source.load_file(ask.path, load, ImportFileError)
    return convert(doc, os.path.basename(ask.path), ask.hookd), data


def _move(ask: import_source.Ask, _original: bytes | None, result: Imported, _output: str, _text: str) -> tuple[str, str]:
    saved = move(ask.path, result)
    undo_it = f"`hookd import copilot --undo {ask.path}` puts it back"
    return saved, f"moved {ask.path} to {saved}, where Copilot CLI no longer reads it ({undo_it})"


def _undo(path: str) -> list[str]:
    try:
        return undo(path)
    except OSError as exc:
        raise import_move.MoveError(f"cannot read {path}: {exc.strerror or exc}") from None


# `hookd import copilot FILE`: Copilot's row for the one import command (hookd/cli/importer.py); the file moves
# aside whole, and refuses by itself when an earlier import was not undone.
SOURCE = import_source.Source(
    "# Each runs through `hookd bridge run-hook copilot`, which gives it Copilot CLI's input and reads its answer as "
    "Copilot does; the decision hooks combine strictest (any deny wins).",
    _read,
    _move,
    _undo,
    fresh=False,
)
