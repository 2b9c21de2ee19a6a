"""`hookd plugins`: list plugin directories, trust or untrust a project's plugins."""

from __future__ import annotations

import argparse
import os
import sys


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "plugins",
        help="list plugin directories; trust a project's plugins",
        description="Plugins (seed 004) are Python modules in $XDG_CONFIG_HOME/hookd/plugins/ (all projects) or "
        "<project>/.hookd/plugins/ (one project; 'plugin/' works too). A project's plugins run only once trusted; "
        "any edit untrusts them until trusted again. See docs/plugins.md.",
    )
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    ls = verbs.add_parser("list", help="show plugin directories, their files and trust", description="Show the plugin directories.")
    ls.add_argument("--project", metavar="DIR", default=None, help="project directory (default: the current directory)")
    ls.set_defaults(run=run_list)
    for verb, helptext in (("trust", "trust a project's plugins as they are now"), ("untrust", "stop trusting a project's plugins")):
        v = verbs.add_parser(
            verb,
            help=helptext,
            description=f"{helptext[0].upper()}{helptext[1:]}. DIR is a plugin directory or a project "
            "(default: the current directory); a running daemon notices within a second.",
        )
        v.add_argument("dirs", nargs="*", metavar="DIR")
        v.set_defaults(run=run_trust if verb == "trust" else run_untrust)
    p.set_defaults(run=lambda args: p.print_help(sys.stderr) or 2)


def _targets(dirs: list[str]) -> list[str]:
    from hookd.plugins import discovery

    out: list[str] = []
    for d in dirs or [os.getcwd()]:
        d = os.path.abspath(d)
        if os.path.basename(d) in discovery.DIR_NAMES:
            out.append(d)
        else:
            out += [p for p in discovery.project_dirs(d) if discovery.has_plugins(p)]
    return out


def run_trust(args: argparse.Namespace) -> int:
    from hookd.plugins import discovery, trust

    targets = _targets(args.dirs)
    if not targets:
        print("hookd: no plugin directory found (looked for .hookd/plugin/ and .hookd/plugins/)", file=sys.stderr)
        return 1
    for d in targets:
        if not discovery.has_plugins(d):
            print(f"hookd: {d}: no *.py files", file=sys.stderr)
            return 1
        digest = trust.trust(d)
        print(f"trusted {d} ({digest[:12]})")
    return 0


def run_untrust(args: argparse.Namespace) -> int:
    from hookd.plugins import trust

    targets = [os.path.abspath(d) for d in args.dirs] if args.dirs else _targets([])
    for d in targets:
        print(("untrusted " if trust.untrust(d) else "was not trusted: ") + d)
    return 0


def run_list(args: argparse.Namespace) -> int:
    from hookd.plugins import discovery, trust

    project = os.path.abspath(args.project or os.getcwd())
    rows = [("global", d) for d in discovery.global_dirs()] + [("project", d) for d in discovery.project_dirs(project)]
    for scope, d in rows:
        files = [p.name for p in discovery.relevant_files(d)]
        if not files:
            continue
        state = "trusted" if scope == "global" or trust.project_plugins_trusted(d) else "NOT trusted (hookd plugins trust)"
        print(f"{scope:<8} {d}  [{state}]")
        for name in files:
            print(f"           {name}")
    return 0
