"""Project plugin trust: a project's plugins run only once the user trusted them.

Like project hook files (issue 3), trust is granted to content: ``hookd plugins
trust DIR`` records the directory's digest (every *.py and requirements.txt);
any edit makes it untrusted again until re-trusted. User (global) plugins are
always trusted; ``HOOKD_TRUST_ALL=1`` trusts everything (CI, containers).

This is the one gate the daemon asks, ``project_plugins_trusted``; when the
project-trust store of issue 3 lands it should answer from that store instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile

from .discovery import digest, state_home

STORE = "trusted-plugins.json"


def store_path(environ: dict[str, str] | None = None) -> str:
    return os.path.join(state_home(environ), STORE)


def _read(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} if isinstance(data, dict) else {}


def _write(path: str, data: dict[str, str]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".trust-")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
    os.replace(tmp, path)


def store_stamp(environ: dict[str, str] | None = None) -> int:
    """Changes whenever the store is rewritten; lets the daemon re-check trust cheaply."""
    with contextlib.suppress(OSError):
        return os.stat(store_path(environ)).st_mtime_ns
    return 0


def project_plugins_trusted(directory: str, environ: dict[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    if env.get("HOOKD_TRUST_ALL") == "1":
        return True
    recorded = _read(store_path(environ)).get(os.path.abspath(directory))
    return recorded is not None and recorded == digest(directory)


def trust(directory: str, environ: dict[str, str] | None = None) -> str:
    """Trust the directory as it is now; returns the digest recorded."""
    directory = os.path.abspath(directory)
    path = store_path(environ)
    data = _read(path)
    data[directory] = digest(directory)
    _write(path, data)
    return data[directory]


def untrust(directory: str, environ: dict[str, str] | None = None) -> bool:
    directory = os.path.abspath(directory)
    path = store_path(environ)
    data = _read(path)
    if data.pop(directory, None) is None:
        return False
    _write(path, data)
    return True
