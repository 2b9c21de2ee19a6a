"""`hookd plugins`: the plugin directories of the user and of a project, with their trust."""

from __future__ import annotations

import argparse
import os
import sys


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "plugins",
        help="list plugin directories and whether they may run",
        description="Plugins (seed 004) are Python modules in $XDG_CONFIG_HOME/hookd/plugins/ (all projects) or "
        "<project>/.hookd/plugins/ (one project; 'plugin/' works too). List them with their files and trust. "
        "A project's plugins run only once trusted with `hookd trust PROJECT` (which also covers its hook files); "
        "any edit untrusts them until trusted again. This command reads the files and the trust record only; "
        "whether a directory's host has loaded (or failed) is in `hookd hooks` and `hookd tail --point 'hookd.plugin.*'`. "
        "See docs/plugins.md.",
    )
    p.add_argument("--project", metavar="DIR", default=None, help="project directory (default: the current directory)")
    p.set_defaults(run=run_list)


def run_list(args: argparse.Namespace) -> int:
    from hookd import trust
    from hookd.plugins import discovery
    from hookd.plugins.trust import project_plugins_trusted

    store = trust.TrustStore(trust_all=trust.trust_all_from_env())
    error = store.load()
    if error:
        print(f"hookd: trust record unreadable, nothing is trusted: {error}", file=sys.stderr)
    project = os.path.abspath(args.project or os.getcwd())
    rows = [("global", d) for d in discovery.global_dirs()] + [("project", d) for d in discovery.project_dirs(project)]
    found = False
    for scope, d in rows:
        files = [p.name for p in discovery.relevant_files(d)]
        if not files:
            continue
        found = True
        if scope == "global":
            state = "may run (your own plugins)"
        else:
            verdict = project_plugins_trusted(store, d)
            state = "may run (trusted)" if verdict.trusted else f"does NOT run: {verdict.reason}"
        print(f"{scope:<8} {d}: {state}")
        for name in files:
            print(f"           {name}")
    if not found:
        print("no plugins (looked in " + ", ".join(d for _, d in rows) + ")")
    return 0
