"""`hookd points`: the hook point catalog."""

from __future__ import annotations

import argparse
import json
import sys


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "points",
        help="list every hook point",
        description="List the hook points: name, kind (observer or decision), the seed that defines it, "
        "and what it means. Points under custom. are free for your own use.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hookd.points import POINTS

    if args.json:
        rows = [{"name": p.name, "kind": p.kind, "seeds": list(p.seeds), "meaning": p.meaning} for p in POINTS.values()]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    for p in POINTS.values():
        sys.stdout.write(f"{p.name:<38} {p.kind:<9} {'+'.join(p.seeds):<8} {p.meaning}\n")
    sys.stdout.write(f"{'custom.*':<38} {'both':<9} {'':<8} your own points\n")
    return 0
