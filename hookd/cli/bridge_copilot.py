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


def write_yaml(output: str, text: str, count: int) -> str | None:
    """Write the imported hooks to ``output`` (never over a file); the error, or None."""
    from hookd.cli.common import plural

    try:
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        with open(output, "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:
        return f"{output} exists; -o never overwrites: choose another file or merge by hand"
    except OSError as exc:
        return f"cannot write {output}: {exc.strerror or exc}"
    sys.stderr.write(f"hookd: wrote {plural(count, 'hook')} to {output}\n")
    return None


def run_import(args: argparse.Namespace) -> int:
    """`hookd import copilot FILE [-o OUT] [--keep | --undo]`, called from hookd/cli/importer.py."""
    import yaml

    from hookd.agents import import_move, settings_file
    from hookd.agents.copilot import importer
    from hookd.cli.common import fail

    path = args.settings
    try:
        if args.undo:
            for line in importer.undo(path):
                sys.stderr.write(f"hookd: {line}\n")
            return 0
        with open(path, "rb") as f:
            doc = importer.load(f.read(), os.path.basename(path))
    except (import_move.MoveError, OSError) as exc:
        return fail(str(exc) if isinstance(exc, import_move.MoveError) else f"cannot read {path}: {exc.strerror or exc}")
    except importer.ImportFileError as exc:
        return fail(str(exc))
    result = importer.convert(doc, os.path.basename(path), args.hookd or settings_file.default_hookd())
    lines = [
        f"# hookd hooks imported from {os.path.abspath(path)} by `hookd import copilot`.",
        "# Each runs through `hookd bridge run-hook copilot`, which gives it Copilot CLI's input and reads its answer as "
        "Copilot does; the decision hooks combine strictest (any deny wins).",
    ]
    lines += [f"# note: {n}" for n in result.notes]
    text = "\n".join(lines) + "\n" + yaml.safe_dump({"hooks": result.hooks}, sort_keys=False, allow_unicode=True, width=1000)
    if not args.output:
        sys.stdout.write(text)
    else:
        error = write_yaml(args.output, text, len(result.hooks))
        if error:
            return fail(error)
        if result.taken and not args.keep:
            try:
                saved = importer.move(path, result)
            except (import_move.MoveError, OSError) as exc:
                os.unlink(args.output)
                return fail(f"{exc}; {args.output} was not kept")
            sys.stderr.write(
                f"hookd: moved {path} to {saved}, where Copilot CLI no longer reads it "
                f"(`hookd import copilot --undo {path}` puts it back)\n"
            )
    for note in result.notes:
        sys.stderr.write(f"hookd: note: {note}\n")
    return 0
