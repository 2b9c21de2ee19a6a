"""The endpoint's two files in the state directory: the secret, and where the daemon listens.

``http-token`` holds the per-user secret (0600 in a 0700 directory: no other
local user can read it). ``http.json`` records the port, so that
`hookd bridge install` can write URLs that stay valid across restarts and the
daemon binds the same port again. Both files are written atomically.
"""

from __future__ import annotations

import json
import os
import secrets
from typing import Any

from hookd.config.statefiles import write_private

TOKEN_FILE = "http-token"
ENDPOINT_FILE = "http.json"
TOKEN_BYTES = 32
HOST = "127.0.0.1"


class EndpointFileError(Exception):
    pass


def token_path(state: str) -> str:
    return os.path.join(state, TOKEN_FILE)


def endpoint_path(state: str) -> str:
    return os.path.join(state, ENDPOINT_FILE)


def _valid_token(text: str) -> bool:
    return len(text) >= 32 and all(c.isascii() and (c.isalnum() or c in "-_") for c in text)


def read_token(state: str) -> str | None:
    """The secret, or None when there is none yet. Raises EndpointFileError for a file others could read or a bad one."""
    path = token_path(state)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise EndpointFileError(f"cannot read {path}: {exc}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_uid != os.getuid() or st.st_mode & 0o077:
            raise EndpointFileError(f"{path} must belong to you and be readable by you alone (chmod 600); refusing a shared secret")
        text = f.read(4096).decode("ascii", "replace").strip()
    if not _valid_token(text):
        raise EndpointFileError(f"{path} does not hold a hookd secret; delete it and a new one is made")
    return text


def token(state: str) -> str:
    """The secret, made on first use."""
    found = read_token(state)
    if found is not None:
        return found
    fresh = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(token_path(state), fresh.encode() + b"\n")
    return read_token(state) or fresh


def read_endpoint(state: str) -> dict[str, Any] | None:
    """What http.json records ({"port": ..., "pid": ...}), or None when nothing is recorded or it cannot be read."""
    try:
        with open(endpoint_path(state), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("port"), int) or not 0 < data["port"] < 65536:
        return None
    return data


def write_endpoint(state: str, port: int, pid: int | None) -> None:
    write_private(endpoint_path(state), json.dumps({"host": HOST, "port": port, "pid": pid}).encode() + b"\n")


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def recorded_or_new_port(state: str) -> int:
    """The recorded port (install writes URLs with it), recording a free one when none is."""
    found = read_endpoint(state)
    if found is not None:
        return int(found["port"])
    port = free_port()
    write_endpoint(state, port, None)
    return port
