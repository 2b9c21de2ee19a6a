"""`hookd doctor`: is every guard you configured able to run? One line per check, with a fix."""

from __future__ import annotations

import argparse
import os
import sys

from hookd.cli.common import add_socket, plural, print_json

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "doctor",
        help="check that hookd and your hooks can run, with a fix for each problem",
        description="Check what a guard depends on: the daemon answers (version, pid); the socket path fits a Unix "
        "socket; no second daemon shares the state directory; no hook file is rejected; the project hook files "
        "of the current directory are trusted; every command hook's command exists on the daemon's PATH (read from "
        "the daemon's process, which under systemd is not your shell's); plugin environments installed and loaded; "
        "for every agent bridged to hookd, a canary tool call through exactly what the agent runs (its HTTP hook, command "
        "or plugin) reaches hookd, comes back in the agent's format and has every guard run, and what keeps tool calls "
        "guarded when hookd is down holds (fail-closed, the Claude Code version, Codex's trust); the installed systemd "
        "unit's ExecStart exists. "
        "Each check prints ok, warn or FAIL and a one-line fix. Exit status 1 when any check fails.",
    )
    p.add_argument("--json", action="store_true", help='print JSON: {"ok": bool, "checks": [{name, status, message, fix}]}')
    p.add_argument("--project", "-p", metavar="DIR", help="project to check (default: the current directory)")
    add_socket(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hookd_client.paths import default_socket_path

    from hookd.cli import doctor_agents as da
    from hookd.cli import doctor_checks as dc
    from hookd.cli import doctor_hooks as dh
    from hookd.config.statefiles import state_home

    socket = args.socket or default_socket_path()
    cwd = os.path.abspath(args.project or os.getcwd())
    daemon = dc.reach(socket, cwd)
    checks = [dc.daemon_check(daemon), dc.socket_check(socket), dc.state_check(daemon)]
    if daemon.status is None:
        checks.append(dc.Check("hooks", "warn", "rejected files, trust and hook commands not checked: the daemon is not reachable"))
    checks += [*dh.rejected_checks(daemon), *dh.untrusted_checks(daemon, cwd), *dh.command_checks(daemon)]
    checks += [*dh.plugin_checks(daemon, cwd), *da.agent_checks(daemon, cwd, state_home()), dh.unit_check()]
    failed = any(c.status == "fail" for c in checks)
    if args.json:
        print_json({"ok": not failed, "checks": [c._asdict() for c in checks]})
        return 1 if failed else 0
    out = sys.stdout
    for c in checks:
        out.write(f"{_MARK[c.status]}  {c.name + ':':<17} {c.message}\n")
        if c.fix and c.status != "ok":
            out.write(f"{'':<24}fix: {c.fix}\n")
    fails = sum(c.status == "fail" for c in checks)
    warns = sum(c.status == "warn" for c in checks)
    out.write(f"{fails} failed, {plural(warns, 'warning')}, {len(checks) - fails - warns} ok\n")
    return 1 if failed else 0
