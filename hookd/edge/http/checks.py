"""Who may call the endpoint, decided from the request line and headers alone (pure functions).

Order matters: a browser's request (it carries Origin) and a request for
another host name (DNS rebinding: a web page's name resolved to 127.0.0.1)
are refused before the secret is even looked at.
"""

from __future__ import annotations

import hmac
import os
import re
from collections.abc import Iterable
from typing import NamedTuple

from hookd.agents import endpoints

PATH_PREFIX = endpoints.prefix(endpoints.DEFAULT)
# Each agent's endpoint: its hook events are POSTed to PREFIX + EVENT and answered in its format.
AGENT_PREFIXES = {endpoints.prefix(agent): agent for agent in endpoints.DIALECTS}
ENV_HEADER = "x-hookd-env-"
# Sent by the shim: it can exit 2 (Claude Code's only block on some events); answered with EXIT_HEADER.
EXITS_HEADER = b"x-hookd-exits"
EXIT_HEADER = "x-hookd-exit"
# Sent by installed hooks: the seconds within which the agent needs the answer (its hook timeout,
# less a margin); every wait of the call inside hookd ends before it.
TIMEOUT_HEADER = b"x-hookd-timeout"
MAX_TIMEOUT = 86400.0
_EVENT = re.compile(r"[A-Za-z][A-Za-z0-9]{0,63}")
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,255}")
MAX_ENV = 512  # the shim forwards the agent's whole environment, as Claude Code gives it to a hook


class Refusal(NamedTuple):
    status: int
    message: str


class Accepted(NamedTuple):
    event: str
    environ: dict[str, str]  # the agent's environment, as forwarded in X-Hookd-Env-NAME headers
    agent: str = "claude-code"
    installed: frozenset[str] | None = None  # the events installed with the calling hook (``?events=``); None: all
    exits: bool = False  # the caller is a command that can exit 2 (the shim)
    timeout: float | None = None  # seconds the agent waits for the answer (X-Hookd-Timeout); None: not said


def hosts(port: int) -> frozenset[bytes]:
    return frozenset({f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()})


def check(
    method: bytes, target: bytes, headers: Iterable[tuple[bytes, bytes]], allowed_hosts: frozenset[bytes], token: bytes
) -> Refusal | Accepted:
    """Accept the request (its event and the agent's environment it forwards) or say why not."""
    host: list[bytes] = []
    auth: list[bytes] = []
    environ: dict[str, str] = {}
    origin = False
    exits = False
    timeout: float | None = None
    for name, value in headers:  # h11 gives names lower-cased
        if name == b"origin":
            origin = True
        elif name == b"host":
            host.append(value)
        elif name == b"authorization":
            auth.append(value)
        elif name == EXITS_HEADER:
            exits = value.strip() == b"2"
        elif name == TIMEOUT_HEADER:
            timeout = _seconds(value)
        elif name.startswith(ENV_HEADER.encode()):
            key = name[len(ENV_HEADER) :].decode("ascii", "replace").upper()
            if _ENV_NAME.fullmatch(key) and value and len(environ) < MAX_ENV:
                environ[key] = os.fsdecode(value)
    if origin:
        return Refusal(403, "requests from web pages (with an Origin header) are refused")
    if len(host) != 1 or host[0] not in allowed_hosts:
        return Refusal(403, "the Host header must be 127.0.0.1:PORT or localhost:PORT")
    presented = auth[0] if len(auth) == 1 else b""
    scheme, _, secret = presented.partition(b" ")
    # Compared in constant time whatever was sent; a missing header compares an empty secret.
    good = hmac.compare_digest(secret.strip(), token)
    if not good or scheme.lower() != b"bearer" or len(auth) != 1:
        return Refusal(401, "missing or wrong bearer secret (see `hookd bridge install`)")
    if method != b"POST":
        return Refusal(405, "only POST is served")
    raw_path, _, query = target.partition(b"?")
    path = raw_path.decode("ascii", "replace")
    prefix = next((p for p in AGENT_PREFIXES if path.startswith(p)), PATH_PREFIX)
    event = path[len(prefix) :] if path.startswith(prefix) else ""
    if not _EVENT.fullmatch(event):
        return Refusal(404, f"no such endpoint; hook events are POSTed to {PATH_PREFIX}EVENT")
    installed = parse_events(query.decode("ascii", "replace")) if query else None
    return Accepted(event, environ, AGENT_PREFIXES[prefix], installed, exits, timeout)


def _seconds(value: bytes) -> float | None:
    """A positive number of seconds (capped at a day), or None for anything else (the hooks' own timeouts apply)."""
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return min(seconds, MAX_TIMEOUT) if seconds > 0 and seconds == seconds else None


def parse_events(query: str) -> frozenset[str] | None:
    """The installed set a request names (``events=A,B``), or None when it names none (all installed)."""
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name == "events":
            return frozenset(e for e in value.split(",") if _EVENT.fullmatch(e))
    return None
