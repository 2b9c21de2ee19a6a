"""Add the bridge to a Claude Code settings file, and take it out again.

The file belongs to the user: every other setting and hook stays, the file
keeps its indentation, and a backup of the original bytes is written before
the first change, readable only by its owner. A settings file that is a
symlink (dotfile managers do this) is updated at its target and stays a link.
Uninstall removes only the matcher groups install added
(recognised by their exact shape) plus the containers install created; when
the result equals the backup, the backup's bytes are put back, so an install
followed by an uninstall leaves the file byte-identical.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .claude_code import INSTALLED_EVENTS

BRIDGE_ARGS = "bridge claude-code"
BACKUP_SUFFIX = ".hookd-backup"
SCOPES = {"user": "~/.claude/settings.json", "project": ".claude/settings.json", "local": ".claude/settings.local.json"}


class SettingsError(Exception):
    pass


def path_for(scope: str) -> str:
    return os.path.abspath(os.path.expanduser(SCOPES[scope]))


def default_hookd() -> str:
    """How the agent should start this hookd: an absolute path, since agents do not share our PATH."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "hookd" and os.path.isfile(argv0):
        return shlex.quote(os.path.abspath(argv0))
    found = shutil.which("hookd")
    if found:
        return shlex.quote(os.path.abspath(found))
    return f"{shlex.quote(sys.executable)} -m hookd"


def bridge_command(command: str | None, extra: str = "") -> str:
    cmd = f"{command or default_hookd()} {BRIDGE_ARGS}"
    return f"{cmd} {extra.strip()}" if extra.strip() else cmd


def group_for(command: str) -> dict[str, Any]:
    return {"hooks": [{"type": "command", "command": command}]}


def is_ours(group: Any) -> bool:
    """A matcher group exactly as install writes it."""
    if not isinstance(group, dict) or set(group) != {"hooks"} or not isinstance(group["hooks"], list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    return (
        isinstance(hook, dict)
        and set(hook) == {"type", "command"}
        and hook["type"] == "command"
        and isinstance(hook["command"], str)
        and re.search(r"(^|\s)" + re.escape(BRIDGE_ARGS) + r"(\s|$)", hook["command"]) is not None
    )


@dataclass(frozen=True, slots=True)
class Style:
    indent: int | str | None = 2
    newline: bool = True

    @classmethod
    def of(cls, text: str) -> Style:
        m = re.search(r"\n([ \t]+)\S", text)
        indent: int | str | None = None
        if m:
            ws = m.group(1)
            indent = len(ws) if set(ws) == {" "} else ws
        return cls(indent, text.endswith("\n"))

    def dump(self, doc: Any) -> str:
        separators = (",", ": ") if self.indent is not None else (",", ":")
        return json.dumps(doc, indent=self.indent, ensure_ascii=False, separators=separators) + ("\n" if self.newline else "")


def _read(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc}") from None


def _parse(data: bytes | None, path: str) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it first, nothing was changed") from None
    if not isinstance(doc, dict):
        raise SettingsError(f"{path} must hold a JSON object, not {type(doc).__name__}")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f"{path}: 'hooks' must map event names to lists of matcher groups; nothing was changed")
    return doc


def _target(path: str) -> Path:
    """Where the bytes of ``path`` live: a symlinked settings file is updated at its target, and stays a link."""
    return Path(os.path.realpath(path))


def _replace(target: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``target`` atomically: a private temporary file next to it, given ``mode``, then renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # mkstemp creates the file with O_EXCL and mode 0600: no one else can open it before the chmod below.
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write(path: str, data: bytes) -> None:
    target = _target(path)
    try:
        mode = target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o644 & ~_umask()
    _replace(target, data, mode)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _backup(path: str, data: bytes) -> str:
    """Keep ``data`` (the file before install) next to ``path``, with the original's mode: readable by no one
    the original was not."""
    backup = path + BACKUP_SUFFIX
    mode = _target(path).stat().st_mode & 0o777
    # A fresh temporary file (O_EXCL, 0600) renamed over the backup: an existing backup or a link planted
    # at its name is replaced, never written through.
    _replace(Path(backup), data, mode)
    return backup


def _ours(doc: dict[str, Any]) -> int:
    return sum(1 for groups in doc.get("hooks", {}).values() for g in groups if is_ours(g))


def install(path: str, command: str) -> str:
    original = _read(path)
    doc = _parse(original, path)
    if found := _ours(doc):
        return f"the hookd bridge is already in {path} ({found} events); nothing changed"
    style = Style.of(original.decode("utf-8")) if original and original.strip() else Style()
    if original is not None:
        _backup(path, original)
    hooks = doc.setdefault("hooks", {})
    for event in INSTALLED_EVENTS:
        hooks.setdefault(event, []).append(group_for(command))
    _write(path, style.dump(doc).encode("utf-8"))
    backup = f"; backup of the previous file: {path + BACKUP_SUFFIX}" if original is not None else ""
    return f"installed the hookd bridge in {path} for {len(INSTALLED_EVENTS)} events ({command}){backup}"


def uninstall(path: str) -> str:
    current = _read(path)
    if current is None:
        return f"{path} does not exist; nothing to uninstall"
    doc = _parse(current, path)
    removed = _ours(doc)
    if not removed:
        return f"the hookd bridge is not in {path}; nothing changed"
    backup_path = path + BACKUP_SUFFIX
    backup = _read(backup_path)
    before = _parse(backup, backup_path) if backup is not None else {}
    before_hooks = before.get("hooks", {}) if "hooks" in before else None
    hooks = doc["hooks"]
    for event in list(hooks):
        hooks[event] = [g for g in hooks[event] if not is_ours(g)]
        if not hooks[event] and (before_hooks is None or event not in before_hooks):
            del hooks[event]
    if not hooks and before_hooks is None:
        del doc["hooks"]
    if backup is not None and doc == before:
        _write(path, backup)
        os.unlink(backup_path)
        return f"removed the hookd bridge from {path} ({removed} events); the file is as it was before install"
    if backup is None and not doc:
        os.unlink(_target(path))
        return f"removed the hookd bridge: {path} held nothing else and install had created it, so it was deleted"
    _write(path, Style.of(current.decode("utf-8")).dump(doc).encode("utf-8"))
    kept = f"; the pre-install backup stays at {backup_path}" if backup is not None else ""
    return f"removed the hookd bridge from {path} ({removed} events); other changes made since install were kept{kept}"
