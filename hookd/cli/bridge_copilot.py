"""`hookd bridge install copilot` and `uninstall copilot`, called from hookd/cli/bridge.py.

Copilot CLI takes command hooks only, so its hooks run the compiled shim, which posts each event to the
daemon's ``/copilot/EVENT`` endpoint. Without a C compiler (or with --no-shim or --command) there is no
shim to run, and install says so rather than install hooks that cannot reach hookd.
"""

from __future__ import annotations

import argparse
import os
import sys

from hookd.agents.copilot import install


def _path(args: argparse.Namespace) -> str:
    if getattr(args, "settings", None):
        return str(args.settings)
    return install.path_for(getattr(args, "scope", None) or "user")


def options_for(args: argparse.Namespace) -> install.Options:
    """The shim and the daemon's endpoint, within Copilot's timeout. Raises TimeoutRefused, InstallError."""
    from hookd.cli.bridge_route import checked_timeout, route

    timeout = checked_timeout(args, "Copilot CLI")
    if getattr(args, "command", None) is not None:
        raise install.InstallError("Copilot CLI's hooks run the compiled shim; --command (the Python bridge) is not offered for it")
    how = route(args, timeout)
    if how.shim is None:
        raise install.InstallError(
            "Copilot CLI's hooks need the compiled shim, which was not built: install a C compiler (cc) and run this again"
        )
    return install.Options(how.shim, how.port, how.token_file, timeout, bool(getattr(args, "fail_closed", False)))


def run_install(args: argparse.Namespace) -> int:
    from hookd.agents import deadlines, safe_write
    from hookd.cli.common import fail
    from hookd.config.endpoint_files import EndpointFileError
    from hookd.config.statefiles import state_home

    try:
        path = _path(args)
        result = install.install(path, options_for(args), state_home())
    except (install.InstallError, deadlines.TimeoutRefused, EndpointFileError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    if os.path.abspath(path) != os.path.abspath(install.path_for("user")) and os.sep + os.path.join(".github", "hooks") in path:
        sys.stderr.write(f"hookd: NOTE: {install.TRUST_NOTE}\n")
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from hookd.agents import safe_write
    from hookd.cli.common import fail
    from hookd.config.statefiles import state_home

    try:
        result = install.uninstall(_path(args), state_home())
    except (install.InstallError, safe_write.Busy, OSError) as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0
