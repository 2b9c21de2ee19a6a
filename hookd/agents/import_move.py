"""Moving imported hooks out of a Claude Code settings file, and putting them back.

Once `hookd import claude-code` has written a settings file's hooks as hookd hooks, the originals
must go, or every hook runs twice (once by Claude Code, once by hookd through the bridge). ``move``
removes exactly the handlers that were imported (the bridge's own entries, and handlers hookd does
not run, such as HTTP or prompt hooks, stay), after keeping the file's original bytes next to it;
``undo`` puts those bytes back, byte for byte, and removes the hooks file the import wrote if it
is unchanged since.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hookd.agents import safe_write
from hookd.agents.settings_file import Style

SAVED = ".hookd-import"  # the settings file's bytes before the move
RECORD = ".hookd-import.json"  # what the import wrote, so that undo can take it back


class MoveError(Exception):
    """The move or its undo cannot be done; the message says why and what to do."""


def without(settings: dict[str, Any], taken: Iterable[tuple[str, int, int]]) -> dict[str, Any]:
    """``settings`` without the handlers at ``taken`` (event, matcher group, handler); empty groups and events go too."""
    gone: dict[str, dict[int, set[int]]] = {}
    for event, gi, hi in taken:
        gone.setdefault(event, {}).setdefault(gi, set()).add(hi)
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict) or not gone:
        return settings
    kept_hooks: dict[str, Any] = {}
    for event, groups in hooks.items():
        drop = gone.get(event)
        if drop is None or not isinstance(groups, list):
            kept_hooks[event] = groups
            continue
        kept_groups = []
        for gi, group in enumerate(groups):
            if gi not in drop or not isinstance(group, dict):
                kept_groups.append(group)
                continue
            handlers = [h for hi, h in enumerate(group.get("hooks") or []) if hi not in drop[gi]]
            if handlers:
                kept_groups.append({**group, "hooks": handlers})
        if kept_groups:
            kept_hooks[event] = kept_groups
    out = dict(settings)
    if kept_hooks:
        out["hooks"] = kept_hooks
    else:
        del out["hooks"]
    return out


def move(settings_path: str, original: bytes, taken: list[tuple[str, int, int]], written: str | None, written_text: str) -> str:
    """Rewrite the settings file without the imported handlers; returns where the original bytes were kept."""
    saved = settings_path + SAVED
    if os.path.lexists(saved):
        raise MoveError(
            f"{saved} exists: an earlier import from this file was not undone; run `hookd import claude-code --undo "
            f"{settings_path}` first, or remove {saved}"
        )
    try:
        doc = json.loads(original.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MoveError(f"{settings_path} is not valid JSON: {exc}") from None
    new = Style.of(original.decode("utf-8")).dump(without(doc, taken)).encode("utf-8")
    return keep_and_replace(settings_path, original, new, written, written_text)


def keep_and_replace(
    settings_path: str, original: bytes, new: bytes, written: str | None, written_text: str, target: str | None = None
) -> str:
    """The move's three writes, in the order that keeps an undo possible at every step: the original bytes
    beside the file, the record of what the import wrote, then the new contents over ``target`` (the file
    itself unless told otherwise, e.g. the real file behind a link). Returns where the original was kept."""
    saved = settings_path + SAVED
    mode = os.stat(settings_path).st_mode & 0o7777
    safe_write.replace(saved, original, mode & 0o600 or 0o600)
    record = {"settings": os.path.abspath(settings_path), "moved_sha256": hashlib.sha256(new).hexdigest()}
    if written is not None:
        record |= {"hooks_file": os.path.abspath(written), "hooks_sha256": hashlib.sha256(written_text.encode("utf-8")).hexdigest()}
    safe_write.replace(settings_path + RECORD, json.dumps(record, indent=2).encode("utf-8") + b"\n", 0o600)
    safe_write.replace(target or settings_path, new, mode)
    return saved


def undo(settings_path: str) -> list[str]:
    """Put the settings file's bytes from before the move back; returns what was done, one line each."""
    saved = settings_path + SAVED
    try:
        original = Path(saved).read_bytes()
    except FileNotFoundError:
        raise MoveError(f"nothing to undo: {saved} does not exist (no import moved hooks out of {settings_path})") from None
    try:
        record = json.loads(Path(settings_path + RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        record = {}
    done: list[str] = []
    try:
        current = Path(settings_path).read_bytes()
        mode = os.stat(settings_path).st_mode & 0o7777
    except FileNotFoundError:
        current, mode = None, os.stat(saved).st_mode & 0o7777
    if current is not None and record.get("moved_sha256") not in (None, hashlib.sha256(current).hexdigest()):
        done.append(f"note: {settings_path} changed since the import; those changes are replaced by the original")
    safe_write.replace(settings_path, original, mode)
    done.append(f"restored {settings_path} ({len(original)} bytes, as before the import)")
    hooks_file = record.get("hooks_file")
    if isinstance(hooks_file, str):
        try:
            text = Path(hooks_file).read_bytes()
        except FileNotFoundError:
            text = None
        if text is not None and hashlib.sha256(text).hexdigest() == record.get("hooks_sha256"):
            os.unlink(hooks_file)
            done.append(f"removed {hooks_file}, which the import wrote")
        elif text is not None:
            done.append(f"kept {hooks_file}: it changed since the import; remove the imported hooks from it by hand")
    os.unlink(saved)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(settings_path + RECORD)
    return done
