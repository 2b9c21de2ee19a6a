"""A project's one identity, and the names trust records files under.

A project is named by the real path of its directory: every symlink resolved,
no ``.`` or ``..``, no trailing slash. The daemon spells it that way everywhere
(the registry's layers, sessions, toggles, events, trust), whatever spelling a
client sent, so ``/work/link/app`` and ``/work/real/app`` are one project.

A file of a project (a hook file, a plugin file) is recorded in the trust store
by the project's identity plus the file's path *as named inside the project*,
with nothing after the project directory resolved: a project's
``.hookd/hooks.yaml`` that is a symlink to another project's trusted file is
its own file, with its own (absent) trust, even though the bytes are the same.
"""

from __future__ import annotations

import os

MARKERS = (".hookd", ".codingcode")  # the directories a project's own hook and plugin files live in
_CACHE_MAX = 4096
_cache: dict[str, str] = {}


class BadPath(ValueError):
    """A path a client sent that cannot name a project; the message says what is wrong."""


def check(path: str, what: str = "project") -> str:
    """``path`` as sent, if it can name a project or file: absolute, no NUL byte. Else BadPath."""
    if not isinstance(path, str):
        raise BadPath(f"{what} must be a string, got {type(path).__name__}")
    if "\0" in path:
        raise BadPath(f"{what} path contains a NUL byte: {path!r}")
    if not os.path.isabs(path):
        raise BadPath(f"{what} must be an absolute path, got {path!r}")
    return path


def canonical(path: str) -> str:
    """The identity of the project at ``path`` (checked with :func:`check` first).

    Resolved once per spelling and kept (a call should not pay for a dozen
    ``lstat``); :func:`forget_spellings` drops what was kept, so a symlink that
    is pointed elsewhere is seen within one poll of the file watcher.
    """
    known = _cache.get(path)
    if known is not None:
        return known
    check(path)
    real = os.path.realpath(path)
    if len(_cache) >= _CACHE_MAX:
        _cache.clear()
    _cache[path] = real
    return real


def forget_spellings() -> None:
    _cache.clear()


def split(path: str) -> tuple[str, str] | None:
    """(project as written, path inside it) when ``path`` lies under a project's .hookd/.codingcode; else None."""
    parts = os.path.normpath(path).split(os.sep)
    for i, part in enumerate(parts):
        if part in MARKERS and i > 0:
            return os.sep.join(parts[:i]) or os.sep, os.sep.join(parts[i:])
    return None


def file_key(path: str) -> str:
    """The name trust records ``path`` (an absolute path) under: the project's identity joined with the
    file's path inside the project, unresolved. A file outside any .hookd/.codingcode directory keeps
    its own name, resolved up to its directory."""
    path = os.path.normpath(path)
    parts = split(path)
    if parts is not None:
        project, inside = parts
        return os.path.join(os.path.realpath(project), inside)
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
