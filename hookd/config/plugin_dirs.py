"""Where plugin directories are, which files of them count, and a cheap fingerprint of those.

The files that count are every file the plugin host can import from its
directory: each ``*.py`` at any depth (helper modules, packages and their
subpackages), plus ``requirements.txt`` at the top. They are what trust hashes,
what a change of reloads the host, and all the host ever sees (it runs from a
private copy of them, see snapshot.py).

A file or directory whose name is not valid UTF-8 cannot be named on the wire
and is left out: it is listed by :func:`scan` as unfit (with its name made
printable by ``intake.safe_text``), never loaded and never hashed.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from hookd.config.userconfig import config_home
from hookd.core import intake

# The seed's singular and plural both work; "plugin" sorts (and runs) first.
DIR_NAMES = ("plugin", "plugins")
REQUIREMENTS = "requirements.txt"
SKIP_DIRS = frozenset({"__pycache__", ".git", ".venv", "node_modules"})
MAX_FILES = 1000  # files counted in one plugin directory; more is refused, not truncated silently
MAX_DEPTH = 16

Fingerprint = tuple[tuple[str, int, int], ...]


def global_dirs(environ: dict[str, str] | None = None) -> list[str]:
    base = os.path.join(config_home(environ), "hookd")
    return [os.path.join(base, name) for name in DIR_NAMES]


def project_dirs(project: str) -> list[str]:
    return [os.path.join(project, ".hookd", name) for name in DIR_NAMES]


@dataclass(slots=True)
class Scan:
    """The files of a plugin directory that count, by path relative to it, with their stat."""

    files: dict[str, os.stat_result] = field(default_factory=dict)
    unfit: list[str] = field(default_factory=list)  # names left out: not UTF-8, not a regular file
    too_many: bool = False


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def scan(directory: str) -> Scan:
    """Walk ``directory`` (not following directory links) for the files that count."""
    out = Scan()
    stack: list[tuple[str, int]] = [("", 0)]
    while stack:
        rel_dir, depth = stack.pop()
        try:
            with os.scandir(os.path.join(directory, rel_dir)) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            rel = os.path.join(rel_dir, entry.name) if rel_dir else entry.name
            if not _utf8(entry.name):
                out.unfit.append(f"{intake.safe_text(rel)}: the name is not valid UTF-8")
                continue
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.startswith(".") or depth >= MAX_DEPTH:
                    continue
                stack.append((rel, depth + 1))
                continue
            if not (entry.name.endswith(".py") or (rel == REQUIREMENTS)):
                continue
            try:
                st = os.stat(entry.path)  # a link to a file counts as the file it names
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                out.unfit.append(f"{rel}: not a regular file")
                continue
            if len(out.files) >= MAX_FILES:
                out.too_many = True
                return out
            out.files[rel] = st
    out.files = dict(sorted(out.files.items()))
    return out


def relevant_files(directory: str) -> list[Path]:
    """The files whose change reloads the directory's host and that trust covers (see the module doc)."""
    return [Path(directory, rel) for rel in scan(directory).files]


def fingerprint(directory: str) -> Fingerprint:
    """(path, mtime_ns, size) of each relevant file: a stat per file, polled cheaply."""
    found = scan(directory)
    out = [(rel, st.st_mtime_ns, st.st_size) for rel, st in found.files.items()]
    out += [(f"!{name}", 0, 0) for name in found.unfit]
    return tuple(out)


def has_code(fp: Fingerprint) -> bool:
    return any(name.endswith(".py") and not name.startswith("!") for name, _, _ in fp)


def requirements_hash(directory: str) -> str | None:
    path = Path(directory, REQUIREMENTS)
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
