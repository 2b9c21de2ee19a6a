"""`hookd guards`: the packs a built-in hook (`builtin: PACK`) can run, and every rule of each, by the
name a policy allows or asks it by (docs/guards.md)."""

from __future__ import annotations

import argparse
import sys

from hookd.cli.common import USAGE, fail, print_json


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "guards",
        help="list hookd's guard packs and their rules (for `builtin:` hooks)",
        description="List the guard packs a built-in hook runs (`builtin: PACK`, or `builtin: default` for all of them) and "
        "every rule of each: the name to put under the hook's options (allow: [RULE], ask: [RULE], or PACK.* for a whole "
        "pack) and what it stops. docs/guards.md (`hookd help guards`) says how to turn them on.",
    )
    p.add_argument("packs", nargs="*", metavar="PACK", help="only these packs (default: all)")
    p.add_argument("--json", action="store_true", help="print JSON: {packs: [{name, default, rules: [{name, summary}]}]}")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hookd.guards.catalogue import rules
    from hookd.guards.model import DEFAULT, PACKS

    unknown = [p for p in args.packs if p not in PACKS]
    if unknown:
        return fail(f"unknown pack {unknown[0]!r}; the packs are {', '.join(PACKS)}", USAGE)
    packs = args.packs or list(PACKS)
    listed = [{"name": pack, "default": pack in DEFAULT, "rules": [{"name": n, "summary": s} for n, s in rules(pack)]} for pack in packs]
    if args.json:
        print_json({"packs": listed})
        return 0
    w = sys.stdout.write
    for i, pack in enumerate(listed):
        w(("\n" if i else "") + f"{pack['name']}{'' if pack['default'] else '  (not in default)'}\n")
        width = max((len(r["name"]) for r in pack["rules"]), default=0)
        for rule in pack["rules"]:
            w(f"  {rule['name']:<{width}}  {rule['summary']}\n")
    return 0
