"""`hookd plugins`: the plugin directories of the user and of a project, with their trust."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from hookd.cli.common import add_json, add_socket


def daemon_view(socket: str | None) -> dict[str, Any] | None:
    """The running daemon's plugin directories by path, or None when it cannot be asked."""
    from hookd_client import Client, HookdError

    try:
        with Client(socket, name="hookd-cli", timeout=5) as client:
            return {p.directory: p for p in client.status().plugins}
    except (HookdError, OSError):
        return None


def describe(info: Any) -> str:
    """One plugin directory's state as the daemon sees it, in words."""
    if info.state == "installing":
        return f"installing requirements ({info.progress})" if info.progress else "installing requirements"
    if info.state == "loaded":
        return f"loaded (host pid {info.pid})" + (f"; its last reload failed: {info.error}" if info.error else "")
    if info.state == "failed":
        return f"FAILED: {info.error}"
    return {"starting": "starting its host", "loading": "loading", "untrusted": "not running: untrusted"}.get(info.state, info.state)


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "plugins",
        help="list plugin directories and whether they may run",
        description="Plugins (seed 004) are Python modules in $XDG_CONFIG_HOME/hookd/plugins/ (all projects) or "
        "<project>/.hookd/plugins/ (one project; 'plugin/' works too). List them with their files and trust. "
        "A project's plugins run only once trusted with `hookd trust PROJECT` (which also covers its hook files); "
        "any edit untrusts them until trusted again. With the daemon running, each directory also shows what the "
        "daemon did with it: installing (with pip's latest line), starting, loaded (its host's pid), failed (and why), "
        "untrusted. Details: `hookd tail --point 'hookd.plugin.*'`. See docs/plugins.md.",
    )
    p.add_argument("--project", metavar="DIR", default=None, help="project directory (default: the current directory)")
    add_json(p, "print JSON: every directory with its files, whether it may run and why, and the daemon's state of it")
    add_socket(p)
    p.set_defaults(run=run_list)


def run_list(args: argparse.Namespace) -> int:
    from hookd.config import plugin_dirs as discovery
    from hookd.config import trust
    from hookd.config.plugin_trust import project_plugins_trusted

    store = trust.TrustStore(trust_all=trust.trust_all_from_env())
    error = store.load()
    if error:
        sys.stderr.write(f"hookd: trust record unreadable, nothing is trusted: {error}\n")
    project = os.path.abspath(args.project or os.getcwd())
    places = [("global", d) for d in discovery.global_dirs()] + [("project", d) for d in discovery.project_dirs(project)]
    live = daemon_view(args.socket)
    rows = []
    for scope, d in places:
        files = [os.path.relpath(p, d) for p in discovery.relevant_files(d)]
        if not files:
            continue
        if scope == "global":
            may_run, why = True, "your own plugins"
        else:
            verdict = project_plugins_trusted(store, d)
            may_run, why = verdict.trusted, "trusted" if verdict.trusted else verdict.reason
        rows.append(
            {"scope": scope, "directory": d, "files": files, "may_run": may_run, "why": why, "daemon": live.get(d) if live else None}
        )
    if args.json:
        from hookd.cli.common import print_json

        print_json({"daemon_running": live is not None, "looked_in": [d for _, d in places], "plugins": rows})
        return 0
    out = sys.stdout.write
    for row in rows:
        state = f"may run ({row['why']})" if row["may_run"] else f"does NOT run: {row['why']}"
        if live is not None:
            info = row["daemon"]
            state += f"; daemon: {describe(info)}" if info is not None else "; daemon: not loaded yet"
        out(f"{row['scope']:<8} {row['directory']}: {state}\n")
        out("".join(f"           {name}\n" for name in row["files"]))
    if not rows:
        out("no plugins (looked in " + ", ".join(d for _, d in places) + ")\n")
    if live is None:
        out("(the daemon is not running: only files and trust are shown)\n")
    return 0
