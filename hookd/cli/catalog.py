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
    p.add_argument(
        "--example",
        metavar="POINT",
        help="print a sample payload of POINT as JSON (the shape a hook there sees), e.g. for `hookd decide --payload -`",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hookd.core.points import POINTS, UnknownPoint

    if args.example is not None:
        from hookd.cli.common import NOT_FOUND, fail
        from hookd.cli.examples import example

        try:
            sys.stdout.write(json.dumps(example(args.example), indent=2) + "\n")
        except UnknownPoint as exc:
            return fail(str(exc), NOT_FOUND)
        return 0
    if args.json:
        rows = [
            {
                "name": p.name,
                "kind": p.kind,
                "seeds": list(p.seeds),
                "meaning": p.meaning,
                "seed_kind": "observer" if p.promoted else p.kind,
            }
            for p in POINTS.values()
        ]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return 0
    for p in POINTS.values():
        seeds = "+".join(p.seeds) + ("*" if p.promoted else "")
        sys.stdout.write(f"{p.name:<38} {p.kind:<9} {seeds:<8} {p.meaning}\n")
    sys.stdout.write(f"{'custom.*':<38} {'both':<9} {'':<8} your own points\n")
    sys.stdout.write("\n* an observer point in seed 000; a decision point in hookd, for the agent bridge (docs/bridges.md)\n")
    return 0
