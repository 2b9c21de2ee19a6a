"""`hookd bridge install|uninstall AGENT` for an agent whose hooks are files of hookd's own in the agent's folder,
each running the compiled shim (Copilot CLI's hook file, Cline's hook files); called from hookd/cli/bridge.py.

The shim posts each event to the daemon's ``/AGENT/EVENT`` endpoint. Without a C compiler (or with --no-shim
or --command) there is no shim to run, and install says so rather than install hooks that cannot reach hookd.
What differs from agent to agent is a row of ``AGENTS``: the agent's install module (``install(where, options,
state)``, ``uninstall(where, state)``, ``Options``, ``InstallError``, and optionally ``note(where)``, a line to
tell the user), the function of it that names the file or folder for a scope, and the longest the agent waits.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import NamedTuple

from hookd.agents import registry


class ShimFiles(NamedTuple):
    install: str  # the agent's install module
    where: str  # its function: scope -> the file (or folder) install writes
    longest: int | None = None  # the agent waits this long for a hook whatever the hook says (None: as long as told)


AGENTS = {
    "copilot": ShimFiles("hookd.agents.copilot.install", "path_for"),
    "cline": ShimFiles("hookd.agents.cline.install", "folder_for", longest=120),  # Cline's 120 s for a blocking hook
}


def _module(args: argparse.Namespace) -> ModuleType:
    return importlib.import_module(AGENTS[args.agent].install)


def _where(args: argparse.Namespace) -> str:
    row, install = registry.agent(args.agent), _module(args)
    if getattr(args, "settings", None):
        if not row.settings_option:
            raise install.InstallError(f"{row.title}'s hooks are files in a folder: use --user (default) or --project")
        return str(args.settings)
    return str(getattr(install, AGENTS[args.agent].where)(getattr(args, "scope", None) or "user"))


def options_for(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The shim and the daemon's endpoint, within the agent's timeout. Raises TimeoutRefused, the agent's InstallError."""
    from hookd.cli.bridge_route import checked_timeout, route

    title, install, longest = registry.agent(args.agent).title, _module(args), AGENTS[args.agent].longest
    timeout = checked_timeout(args, title)
    if longest is not None:
        timeout = min(timeout, longest)  # a shorter --timeout is honoured
    if getattr(args, "command", None) is not None:
        raise install.InstallError(f"{title}'s hooks run the compiled shim; --command (the Python bridge) is not offered for it")
    how = route(args, timeout)
    if how.shim is None:
        raise install.InstallError(
            f"{title}'s hooks need the compiled shim, which was not built: install a C compiler (cc) and run this again"
        )
    return install.Options(how.shim, how.port, how.token_file, timeout, bool(getattr(args, "fail_closed", False)))


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, safe_write
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError
    from hookd.config.statefiles import state_home

    install = _module(args)
    try:
        where = _where(args)
        result = install.install(where, options_for(args), state_home())
    except (install.InstallError, deadlines.TimeoutRefused, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    note = getattr(install, "note", None)
    said = note(where) if note is not None else None
    if said:
        sys.stderr.write(f"hookd: NOTE: {said}\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write
    from hookd.cli.common import fail
    from hookd.config.statefiles import state_home

    install = _module(args)
    try:
        result = install.uninstall(_where(args), state_home())
    except (install.InstallError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
