"""Small JSON files under ``$XDG_STATE_HOME/hookd/`` that must survive restarts.

Writes are atomic (a temporary file in the same directory, fsync, rename), so
a crash leaves either the old file or the new one. A file that cannot be read
or parsed is reported to the caller, which decides what "empty" means for it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Any


def state_home(environ: dict[str, str] | None = None) -> str:
    """``$XDG_STATE_HOME/hookd``, else ``~/.local/state/hookd``."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "hookd")


class StateFileError(Exception):
    pass


def read_json(path: str) -> dict[str, Any] | None:
    """The object stored at ``path``; None when there is no file. Raises StateFileError."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise StateFileError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise StateFileError(f"{path} does not hold a JSON object")
    return data


def write_json(path: str, data: dict[str, Any]) -> None:
    write_private(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())


def write_private(path: str, data: bytes) -> None:
    """``data`` at ``path`` in one step, readable by this user alone, its directory made 0700 if new."""
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    # mkstemp creates the file 0600 with O_EXCL: no one else can open it, before or after the rename.
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
