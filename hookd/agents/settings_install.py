"""Install the bridge into a settings file in Claude Code's layout, and take it out again, leaving nothing.

The file belongs to the user: every other setting and hook stays, the file keeps its indentation. Before
hookd's first change, what the file was (its bytes and mode, or that it did not exist, and the
directories install had to create) is recorded in hookd's state directory (install_record.py), never
next to the file: nothing of hookd's lands in a repository, and the record never holds the bridge's
secret. Uninstall removes exactly the matcher groups install wrote (recognised by their shape) and the
containers it created; when the result is what the file was, its bytes and mode are put back, a file
install created is removed with the directories it created, and the record goes. Changes made to the
file since install are kept.

A project's committed ``.claude/settings.json`` gets the hooks but not the secret: that goes in the
uncommitted ``.claude/settings.local.json`` beside it, recorded and removed the same way.

Every write goes through safe_write: under a lock, read again just before the rename and computed again
if the agent wrote the file meanwhile, flushed to disk.
"""

from __future__ import annotations

import copy
import os
import subprocess
from typing import Any

from hookd.agents import install_record, safe_write
from hookd.agents.install_record import Record
from hookd.agents.settings_file import (
    BACKUP_SUFFIX,
    TOKEN_ENV,
    Layout,
    SettingsError,
    Style,
    count,
    has_secret,
    is_ours,
    parse,
    relying_on,
    strip,
    strip_secret,
)

SECRET_MODE = 0o600  # a file that holds the secret is readable by its owner alone


def _style(data: bytes | None) -> Style:
    return Style.of(data.decode("utf-8")) if data and data.strip() else Style()


def _before(record: Record | None, path: str) -> dict[str, Any] | None:
    """The file before install as a document; None when install created it (or nothing is known)."""
    if record is None or not record.existed or record.original is None:
        return None
    return parse(record.original.encode("utf-8"), path)


def _legacy_backup(path: str, state: str) -> Record | None:
    """A backup an earlier version kept next to the file, taken into a record and removed. One that holds
    the bridge's secret or hooks is not the user's original (an earlier version could copy its own install
    there): it is removed and not used."""
    backup = path + BACKUP_SUFFIX
    data = safe_write.read(backup)
    if data is None:
        return None
    try:
        doc = parse(data, backup)
    except SettingsError:
        return None
    record = None
    if not has_secret(doc) and not count(doc):
        mode = os.stat(backup).st_mode & 0o777
        record = Record("claude-code", os.path.abspath(path), True, data.decode("utf-8"), mode)
        install_record.save(state, record)
    os.unlink(backup)
    return record


def _fresh(old: Record | None, agent: str, path: str, current: bytes | None, created: list[str], role: str) -> Record:
    """The record of ``path`` as it is now, before install writes into it."""
    mode = safe_write.target(path).stat().st_mode & 0o777 if current is not None else None
    text = current.decode("utf-8") if current is not None else None
    dirs = [*(old.created_dirs if old is not None else []), *created]
    return Record(agent, path, current is not None, text, mode, list(dict.fromkeys(dirs)), role=role)


def _mkdirs(path: str) -> list[str]:
    created = safe_write.missing_dirs(str(safe_write.target(path)))
    for d in created:
        os.mkdir(d)
    return created


def install(path: str, layout: Layout, *, state: str, token: str | None = None, secret_path: str | None = None) -> str:
    """Put ``layout``'s groups for its events into ``path``; ``token`` goes in ``env`` there, or in ``secret_path``.

    Raises SettingsError (nothing changed), safe_write.Busy, OSError."""
    path = os.path.abspath(path)
    record = install_record.load(state, path)
    created = _mkdirs(path)
    outcome: dict[str, Any] = {}

    def compute(current: bytes | None) -> object:
        nonlocal record
        doc = parse(current, path)
        installed = count(doc, layout.ours)
        if record is None and installed:
            record = _legacy_backup(path, state)
        if not installed and not has_secret(doc):
            # Nothing of hookd's is in the file: it is what install starts from (a record left by an install
            # that did not finish, or of a file since removed, is replaced).
            record = _fresh(record, layout.agent, path, current, created, "settings")
            install_record.save(state, record)
        wanted = copy.deepcopy(doc)
        if installed or has_secret(doc):
            strip(wanted, _before(record, path), layout.ours)
        hooks = wanted.setdefault("hooks", {})
        for event in layout.events:
            hooks.setdefault(event, []).append(layout.group(event))
        if token is not None and secret_path is None:
            env = wanted.setdefault("env", {})
            if not isinstance(env, dict):
                raise SettingsError(f"{path}: 'env' must be an object; nothing was changed")
            env[TOKEN_ENV] = token
        outcome.update(installed=installed, same=wanted == doc)
        if wanted == doc:
            return safe_write.UNCHANGED
        return _style(current).dump(wanted).encode("utf-8")

    try:
        mode = SECRET_MODE if token is not None and secret_path is None else None
        safe_write.update(path, compute, mode)
    except BaseException:
        if not outcome:  # nothing was written: the directories install made go again
            safe_write.remove_dirs(created)
        raise
    lines = []
    if outcome["same"]:
        lines.append(f"the hookd bridge is already in {path} ({outcome['installed']} events); nothing changed")
    else:
        lines.append(f"installed the hookd bridge in {path} for {len(layout.events)} events ({layout.description})")
    if token is not None and secret_path is not None:
        lines.append(install_secret(secret_path, token, state=state, agent=layout.agent))
    return "\n".join(lines)


def install_secret(path: str, token: str, *, state: str, agent: str = "claude-code") -> str:
    """The bridge's secret in ``path``'s ``env`` (a project's uncommitted local settings file)."""
    path = os.path.abspath(path)
    record = install_record.load(state, path)
    created = _mkdirs(path)

    def compute(current: bytes | None) -> object:
        nonlocal record
        doc = parse(current, path)
        if (record is None or record.role == "secret") and not has_secret(doc) and not count(doc):
            record = _fresh(record, agent, path, current, created, "secret")
            install_record.save(state, record)
        env = doc.setdefault("env", {})
        if not isinstance(env, dict):
            raise SettingsError(f"{path}: 'env' must be an object; nothing was changed")
        if env.get(TOKEN_ENV) == token:
            return safe_write.UNCHANGED
        env[TOKEN_ENV] = token
        return _style(current).dump(doc).encode("utf-8")

    try:
        safe_write.update(path, compute, SECRET_MODE)
    except BaseException:
        safe_write.remove_dirs(created)
        raise
    return f"the bridge's secret is in {path}, Claude Code's file for settings that are not committed"


def unignored_warning(path: str) -> str | None:
    """A warning when the file holding the secret is in a git work tree that does not ignore it."""
    if not not_ignored(path):
        return None
    return (
        f"WARNING: {path} holds your hookd secret and git does not ignore it, so `git add` would commit it: ignore it "
        "as Claude Code does when it creates that file (`echo '**/.claude/settings.local.json' >> ~/.config/git/ignore`) "
        "or in the repository's .gitignore"
    )


def not_ignored(path: str) -> bool:
    """True when ``path`` is inside a git work tree that does not ignore it (False without git)."""
    try:
        done = subprocess.run(["git", "check-ignore", "-q", path], cwd=os.path.dirname(path), capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 1


def uninstall(path: str, ours: Any = is_ours, *, state: str, secret_path: str | None = None) -> str:
    """Take install's groups out of ``path`` (and the secret out of ``secret_path``). Raises SettingsError, OSError."""
    path = os.path.abspath(path)
    record = install_record.load(state, path)
    if record is None:
        record = _legacy_backup(path, state)
    # A project's local settings file keeps the secret while the committed file beside it relies on it.
    committed = relying_on(path)
    keep_secret = committed is not None and _holds_ours(committed)
    outcome: dict[str, Any] = {}
    # The secret first: the settings file's record names the directories install created, which can go only
    # once both files are gone.
    secret_line = uninstall_secret(secret_path, state=state) if secret_path is not None else None
    lines: list[str] = []

    def compute(current: bytes | None) -> object:
        if current is None:
            outcome["what"] = "missing"
            return safe_write.UNCHANGED
        doc = parse(current, path)
        removed = count(doc, ours)
        outcome["removed"] = removed
        if not removed:
            outcome["what"] = "absent"
            return safe_write.UNCHANGED
        before = _before(record, path)
        strip(doc, before, ours, keep_secret=keep_secret)
        return _stripped(doc, before, record, current, outcome)

    mode = record.mode if record is not None and record.existed and not keep_secret else None
    if os.path.isdir(safe_write.target(path).parent):
        safe_write.update(path, compute, mode)
    what = outcome.get("what", "missing")
    if what == "missing":
        lines.append(f"{path} does not exist; nothing to uninstall")
    elif what == "absent":
        lines.append(f"the hookd bridge is not in {path}; nothing changed")
    elif what == "restored":
        lines.append(f"removed the hookd bridge from {path} ({outcome['removed']} events); the file is as it was before install")
    elif what == "removed":
        lines.append(f"removed the hookd bridge: {path} held nothing else and install had created it, so it was deleted")
        if record is not None:
            install_record.remove_created(state, record, path)
    else:
        lines.append(f"removed the hookd bridge from {path} ({outcome['removed']} events); other changes made since install were kept")
    # The record goes with the install; a project's local file whose secret is still relied on keeps the
    # record of what it was, for the uninstall that takes the secret out.
    shared = keep_secret and record is not None and record.role == "secret"
    if what in ("restored", "removed", "kept", "missing") and record is not None and not shared:
        install_record.drop(state, path)
    return "\n".join([*lines, secret_line] if secret_line else lines)


def _stripped(doc: dict[str, Any], before: dict[str, Any], record: Record | None, current: bytes, outcome: dict[str, Any]) -> object:
    """What the file becomes once hookd's part is out of ``doc``: its bytes from before install when nothing else
    changed, gone when install created it and nothing is left, else ``doc`` in the file's own style."""
    if record is not None and record.existed and record.original is not None and doc == before:
        outcome["what"] = "restored"
        return record.original.encode("utf-8")
    if (record is None or not record.existed) and not doc:
        outcome["what"] = "removed"
        return safe_write.REMOVE
    outcome["what"] = "kept"
    return _style(current).dump(doc).encode("utf-8")


def _holds_ours(path: str) -> bool:
    try:
        return count(parse(safe_write.read(path), path)) > 0
    except (SettingsError, OSError):
        return True  # unreadable: assume it still needs the secret


def uninstall_secret(path: str, *, state: str) -> str | None:
    """Take the secret out of a project's local settings file, unless hooks there need it (a --local install)."""
    path = os.path.abspath(path)
    record = install_record.load(state, path)
    if record is not None and record.role != "secret":
        record = None  # the file's own install (--local) owns the record
    outcome: dict[str, Any] = {}

    def compute(current: bytes | None) -> object:
        if current is None:
            return safe_write.UNCHANGED
        doc = parse(current, path)
        if count(doc) or not has_secret(doc):
            return safe_write.UNCHANGED
        before = _before(record, path)
        strip_secret(doc, before)
        return _stripped(doc, before, record, current, outcome)

    if not os.path.isdir(safe_write.target(path).parent):
        return None
    mode = record.mode if record is not None and record.existed else None
    safe_write.update(path, compute, mode)
    if record is not None and outcome:
        install_record.drop(state, path)
    if outcome.get("what") == "removed":
        if record is not None:
            install_record.remove_created(state, record, path)
        return f"removed the bridge's secret: {path} held nothing else and install had created it, so it was deleted"
    if outcome:
        return f"removed the bridge's secret from {path}"
    return None


def installed_in(path: str, ours: Any = is_ours) -> int:
    """How many of install's groups ``path`` holds (0: none, or no such file). Raises SettingsError."""
    return count(parse(safe_write.read(path), path), ours)
