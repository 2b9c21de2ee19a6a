"""How an install reaches hookd, and within what deadline: the route and the checked options that
every agent's install shares (hookd/cli/bridge.py and each agent's bridge_*.py)."""

from __future__ import annotations

import argparse
import shlex
import sys

from hookd.agents import deadlines


def checked_timeout(args: argparse.Namespace, agent: str) -> int:
    """``--timeout``, if the agent can honour it with hookd's deadline below it. Raises deadlines.TimeoutRefused."""
    return deadlines.check(args.timeout, agent)


def checked_bridge_args(args: argparse.Namespace) -> str:
    """``--bridge-args``, which must not set the bridge's deadline: install writes it, below the agent's timeout."""
    text = getattr(args, "bridge_args", "") or ""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise deadlines.TimeoutRefused(f"--bridge-args {text!r} cannot be read: {exc}") from None
    if any(w == "--timeout" or w.startswith("--timeout=") for w in words):
        raise deadlines.TimeoutRefused(
            "--bridge-args must not set --timeout: install writes the bridge's deadline itself, a margin below the "
            "agent's timeout (give that as --timeout)"
        )
    return text


def route(args: argparse.Namespace, timeout: int):  # type: ignore[no-untyped-def]
    """How the installed hooks reach hookd: the daemon's HTTP endpoint, and the shim where a command is needed."""
    from hookd.agents import settings_file, shim
    from hookd.config import endpoint_files as files
    from hookd.config.statefiles import state_home

    state = state_home()
    token = files.token(state)
    port = files.recorded_or_new_port(state)
    built = shim.Built(None, "--no-shim") if args.no_shim else shim.build()
    if built.path is None:
        sys.stderr.write(f"hookd bridge install: the shim was not built ({built.why}); the Python bridge runs instead\n")
    return settings_file.Route(
        port=port,
        token=token,
        token_file=files.token_path(state),
        shim=built.path,
        fallback=settings_file.default_hookd(),
        timeout=timeout,
        fail_closed=args.fail_closed,
    )
