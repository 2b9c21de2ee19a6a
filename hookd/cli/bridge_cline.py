"""`hookd bridge install cline` and `uninstall cline`, called from hookd/cli/bridge.py.

Cline's hooks are executable files, so each runs the compiled shim, which posts the event to the daemon's
``/cline/EVENT`` endpoint. Without a C compiler (or with --no-shim or --command) there is no shim to run,
and install says so rather than install hooks that cannot reach hookd.
"""

from __future__ import annotations

import argparse
import sys

from hookd.agents.cline import install


def _folder(args: argparse.Namespace) -> str:
    if getattr(args, "settings", None):
        raise install.InstallError("Cline's hooks are files in a folder: use --user (default) or --project")
    return install.folder_for(getattr(args, "scope", None) or "user")


def options_for(args: argparse.Namespace) -> install.Options:
    """The shim and the daemon's endpoint, within Cline's 120 s. Raises TimeoutRefused, InstallError."""
    from hookd.cli.bridge_route import checked_timeout, route

    # Cline waits 120 s for a blocking hook whatever a hook file says; a shorter --timeout is honoured.
    timeout = min(checked_timeout(args, "Cline"), install.TIMEOUT)
    if getattr(args, "command", None) is not None:
        raise install.InstallError("Cline's hooks run the compiled shim; --command (the Python bridge) is not offered for it")
    how = route(args, timeout)
    if how.shim is None:
        raise install.InstallError(
            "Cline's hooks need the compiled shim, which was not built: install a C compiler (cc) and run this again"
        )
    return install.Options(how.shim, how.port, how.token_file, timeout, bool(getattr(args, "fail_closed", False)))


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, safe_write
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError
    from hookd.config.statefiles import state_home

    try:
        result = install.install(_folder(args), options_for(args), state_home())
    except (install.InstallError, deadlines.TimeoutRefused, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write
    from hookd.cli.common import fail
    from hookd.config.statefiles import state_home

    try:
        result = install.uninstall(_folder(args), state_home())
    except (install.InstallError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
