"""`hookd install-systemd`: install the systemd user units for this hookd."""

from __future__ import annotations

import argparse
import sys


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "install-systemd",
        help="install hookd.socket and hookd.service as systemd user units",
        description="Write hookd.socket and hookd.service into your systemd user unit directory "
        "($XDG_CONFIG_HOME/systemd/user, else ~/.config/systemd/user), with ExecStart= pointing at this "
        "install of hookd. The socket listens on $XDG_RUNTIME_DIR/hookd/hookd.sock, the path clients use "
        "by default, and starts the daemon when the first client connects. Existing hookd units there are "
        "replaced. Nothing is enabled or started: the command prints what to run next.",
        epilog="Then: systemctl --user daemon-reload && systemctl --user enable --now hookd.socket. "
        "Logs: journalctl --user -u hookd. Docs: docs/systemd.md.",
    )
    p.add_argument("--unit-dir", metavar="DIR", help="write the units here instead of the user unit directory")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the units to stdout, write nothing")
    p.add_argument("--json", action="store_true", help="print JSON: {units: {name: text}} with --print; else {files, exec_start, next}")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from hookd.cli.common import fail, print_json
    from hookd.edge import units

    if args.print_only and args.json:
        print_json({"units": {name: units.render(name) for name in units.UNITS}})
        return 0
    if args.print_only:
        for name in units.UNITS:
            sys.stdout.write(f"# ---- {name}\n{units.render(name)}")
        return 0
    directory = Path(args.unit_dir).expanduser() if args.unit_dir else units.user_unit_dir()
    try:
        done = units.install(directory)
    except OSError as exc:
        return fail(f"cannot write the units into {directory}: {exc.strerror or exc}")
    command = " ".join(units.quote(a, executable=i == 0) for i, a in enumerate(units.hookd_command()))
    if args.json:
        files = [{"file": str(path), "what": what} for path, what in done]
        steps = ["systemctl --user daemon-reload", "systemctl --user enable --now hookd.socket"]
        print_json({"files": files, "exec_start": f"{command} serve", "next": steps})
        return 0
    for path, what in done:
        sys.stdout.write(f"{what}: {path}\n")
    sys.stdout.write(
        f"ExecStart runs: {command} serve\n\n"
        "Next:\n"
        "  systemctl --user daemon-reload\n"
        "  systemctl --user enable --now hookd.socket\n"
        "Logs:\n"
        "  journalctl --user -u hookd\n"
    )
    return 0
