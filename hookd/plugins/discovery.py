"""Where plugin directories are, and a cheap fingerprint of their contents."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..userconfig import config_home

# The seed's singular and plural both work; "plugin" sorts (and runs) first.
DIR_NAMES = ("plugin", "plugins")
REQUIREMENTS = "requirements.txt"

Fingerprint = tuple[tuple[str, int, int], ...]


def global_dirs(environ: dict[str, str] | None = None) -> list[str]:
    base = os.path.join(config_home(environ), "hookd")
    return [os.path.join(base, name) for name in DIR_NAMES]


def project_dirs(project: str) -> list[str]:
    return [os.path.join(project, ".hookd", name) for name in DIR_NAMES]


def relevant_files(directory: str) -> list[Path]:
    """The files whose change reloads the directory's host: every *.py and requirements.txt."""
    try:
        entries = sorted(Path(directory).iterdir())
    except OSError:
        return []
    return [p for p in entries if p.is_file() and (p.suffix == ".py" or p.name == REQUIREMENTS)]


def fingerprint(directory: str) -> Fingerprint:
    """(name, mtime_ns, size) of each relevant file: a stat per file, polled cheaply."""
    out = []
    for p in relevant_files(directory):
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((p.name, st.st_mtime_ns, st.st_size))
    return tuple(out)


def requirements_hash(directory: str) -> str | None:
    path = Path(directory, REQUIREMENTS)
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
