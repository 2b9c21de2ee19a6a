"""`hookd import cline PATH`: the hook files in a Cline hooks folder (or one hook file) as hookd YAML hooks.

Each hook file of the user's (named after a Cline event, with an extension Cline accepts) becomes one hookd
command hook running ``hookd bridge run-hook cline --event EVENT -- INTERPRETER FILE`` (hookd/agents/adapter.py,
with hooks.py's ``FORMAT``, gives it Cline's input and answer rules) on the point the bridge maps its event to, started as Cline starts it:
by its `#!` line, else by its extension (`bash` for none or `.sh`, `node` for `.js`, `python3` for `.py`...).
Cline gives a blocking hook 120 s, so does the import. The decision hooks form one group combined
``strictest``. Moving them out of Cline's way renames each file to FILE.hookd-import (an extension Cline
does not read), and the imported hook runs that file; `--undo` renames them back. Written against the agent
dialect table (ROUTES); the Claude Code importer's shared pieces (Imported, slug) are reused.
"""

from __future__ import annotations

import os
from typing import Any

from hookd.agents import import_move, import_source
from hookd.agents.cline.install import EXTENSIONS, TIMEOUT, is_ours
from hookd.agents.cline.protocol import ROUTES, UNMAPPED_PREFIX
from hookd.agents.importer import Imported, slug
from hookd.core import points

GROUP = "cline"
_EVENTS = {event.lower(): event for event in ROUTES}
_BY_EXTENSION = {".sh": ["bash"], ".bash": ["bash"], ".zsh": ["bash"], ".js": ["node"], ".mjs": ["node"], ".cjs": ["node"]}
_BY_EXTENSION |= {".ts": ["bun", "run"], ".mts": ["bun", "run"], ".cts": ["bun", "run"], ".py": ["python3"], ".ps1": ["pwsh", "-File"]}


class ImportFileError(ValueError):
    """The path holds no Cline hook file; the message says why."""


def event_of(name: str) -> str | None:
    """The event a hook file's name gives it, as Cline reads names (any case, an extension it knows); else None."""
    stem, ext = os.path.splitext(name)
    return _EVENTS.get(stem.strip().lower()) if ext.lower() in EXTENSIONS else None


def hook_files(path: str) -> list[tuple[str, str]]:
    """(event, file) of every hook file of the user's at ``path`` (a folder, or one file)."""
    if os.path.isdir(path):
        found = [os.path.join(path, n) for n in sorted(os.listdir(path))]
    elif os.path.isfile(path):
        found = [path]
    else:
        raise ImportFileError(f"{path}: no such file or folder")
    out = []
    for file in found:
        event = event_of(os.path.basename(file))
        if event is not None and os.path.isfile(file) and not is_ours(file):
            out.append((event, file))
    return out


def interpreter(file: str) -> list[str]:
    """How Cline starts a hook file: its `#!` line (through `env` too), else by its extension."""
    try:
        with open(file, "rb") as f:
            first = f.readline(4096).decode("utf-8", "replace").strip()
    except OSError:
        first = ""
    if first.startswith("#!") and first[2:].split():
        words = first[2:].split()
        if os.path.basename(words[0]) == "env" and len(words) > 1:
            words = words[1:]
        return words
    return _BY_EXTENSION.get(os.path.splitext(file)[1].lower(), ["bash"])


def point_for(event: str) -> tuple[str, str]:
    point, decides = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    kind = "decision" if decides and points.lookup(point).kind == "decision" else "observer"
    return point, kind


def convert(path: str, hookd: str, moved: bool) -> Imported:
    """The hookd hooks for every hook file at ``path``; ``moved``: they run from FILE.hookd-import."""
    result = Imported()
    counts: dict[str, int] = {}
    for event, file in hook_files(path):
        point, kind = point_for(event)
        counts[event] = counts.get(event, 0) + 1
        runs = os.path.abspath(file) + (import_move.SAVED if moved else "")
        hook: dict[str, Any] = {
            "name": f"cline-{slug(event)}-{counts[event]}",
            "description": f"imported from {file}: {event}",
            "point": point,
            "type": kind,
            "command": hookd,
            "args": ["bridge", "run-hook", "cline", "--event", event, "--", *interpreter(file), runs],
            "timeout": TIMEOUT,
            "enabled": True,
        }
        if kind == "decision":
            hook["group"], hook["combine"] = GROUP, "strictest"
        result.hooks.append(hook)
        result.taken.append((file, 0, 0))
    if not result.hooks:
        result.notes.append(f"{path} holds no hook file of yours; nothing to import")
    return result


def move(imported: Imported) -> list[str]:
    """Rename each imported file to FILE.hookd-import, where Cline no longer runs it. Raises import_move.MoveError."""
    files = [file for file, _, _ in imported.taken]
    taken = [f + import_move.SAVED for f in files if os.path.lexists(f + import_move.SAVED)]
    if taken:
        raise import_move.MoveError(f"{', '.join(taken)} exist: an earlier import was not undone; run `hookd import cline --undo` first")
    for file in files:
        os.rename(file, file + import_move.SAVED)
    return [f + import_move.SAVED for f in files]


def undo(path: str) -> list[str]:
    """Rename the files an import moved aside at ``path`` (a folder, or one hook file) back. Raises import_move.MoveError."""
    if os.path.isdir(path):
        saved = [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(import_move.SAVED)]
    else:
        saved = [path + import_move.SAVED] if os.path.lexists(path + import_move.SAVED) else []
    if not saved:
        raise import_move.MoveError(f"no hook file moved aside by `hookd import cline` at {path}: nothing to undo")
    back = [s[: -len(import_move.SAVED)] for s in saved]
    clash = [b for b in back if os.path.lexists(b)]
    if clash:
        raise import_move.MoveError(f"{', '.join(clash)} exist again: move them away, then undo")
    for s, b in zip(saved, back, strict=True):
        os.rename(s, b)
    return [f"{b} is back: Cline runs it again; remove the hookd hooks imported from it, or it runs twice" for b in back]


def _read(ask: import_source.Ask) -> tuple[Imported, bytes | None]:
    try:
        return convert(ask.path, ask.hookd, moved=ask.moving), None
    except (import_move.MoveError, ImportFileError, OSError) as exc:
        raise import_source.ImportFailed(str(exc)) from None


def _move(ask: import_source.Ask, _original: bytes | None, result: Imported, _output: str, _text: str) -> tuple[str, str]:
    moved = move(result)
    return ", ".join(moved), (
        f"moved {', '.join(moved)} aside, where Cline no longer runs them (`hookd import cline --undo {ask.path}` puts them back)"
    )


# `hookd import cline PATH`: Cline's row for the one import command (hookd/cli/importer.py); each hook file is
# renamed aside, and the move refuses by itself when an earlier import was not undone.
SOURCE = import_source.Source(
    "# Each runs through `hookd bridge run-hook cline`, which gives it Cline's input and reads its answer as Cline "
    "does; a cancel denies the one tool call (Cline would end the run); the decision hooks combine strictest.",
    _read,
    _move,
    undo,
    fresh=False,
)
