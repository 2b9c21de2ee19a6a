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


def run_import(args: argparse.Namespace) -> int:
    """`hookd import cline PATH [-o OUT] [--keep | --undo]` (a hooks folder or one hook file), from hookd/cli/importer.py."""
    import os

    import yaml

    from hookd.agents import import_move, settings_file
    from hookd.agents.cline import importer
    from hookd.cli.bridge_copilot import write_yaml
    from hookd.cli.common import fail

    path = args.settings
    try:
        if args.undo:
            for line in importer.undo(path):
                sys.stderr.write(f"hookd: {line}\n")
            return 0
        moving = bool(args.output) and not args.keep
        result = importer.convert(path, args.hookd or settings_file.default_hookd(), moved=moving)
    except (import_move.MoveError, importer.ImportFileError, OSError) as exc:
        return fail(str(exc))
    lines = [
        f"# hookd hooks imported from {os.path.abspath(path)} by `hookd import cline`.",
        "# Each runs through `hookd bridge run-hook cline`, which gives it Cline's input and reads its answer as Cline "
        "does; a cancel denies the one tool call (Cline would end the run); the decision hooks combine strictest.",
    ]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    if not args.output:
        sys.stdout.write(text)
    else:
        error = write_yaml(args.output, text, len(result.hooks))
        if error:
            return fail(error)
        if moving and result.taken:
            try:
                moved = importer.move(result)
            except (import_move.MoveError, OSError) as exc:
                os.unlink(args.output)
                return fail(f"{exc}; {args.output} was not kept")
            sys.stderr.write(
                f"hookd: moved {', '.join(moved)} aside, where Cline no longer runs them "
                f"(`hookd import cline --undo {path}` puts them back)\n"
            )
    for note in result.notes:
        sys.stderr.write(f"hookd: note: {note}\n")
    return 0
