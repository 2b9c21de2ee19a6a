"""Where the daemon's socket lives. The daemon and every client use this one rule."""

from __future__ import annotations

import os


def default_socket_path(environ: dict[str, str] | None = None) -> str:
    """``$HOOKD_SOCKET``, else ``$XDG_RUNTIME_DIR/hookd/hookd.sock``, else ``/tmp/hookd-$UID/hookd.sock``."""
    env = os.environ if environ is None else environ
    explicit = env.get("HOOKD_SOCKET")
    if explicit:
        return explicit
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "hookd", "hookd.sock")
    return os.path.join("/tmp", f"hookd-{os.getuid()}", "hookd.sock")
