"""`hookd stats`: what each hook did, per point and per session, over the daemon's life and recently."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import msgspec

from hookd.cli.common import add_socket, call, plural, print_json


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "stats",
        help="show what each hook did: calls, durations, denies, errors, skips",
        description="Per hook: calls, p50/p95/p99 duration, denies, asks, errors, timeouts, skips by reason (match, "
        "untrusted, shed, decided...) and the last error; then per point, per agent and per session (whole decides). Each over "
        "the daemon's life and over the recent window. A shadow hook's denies and asks are what it would have done.",
    )
    p.add_argument("--window", type=float, metavar="SECONDS", help="the recent window (default: the daemon's, 300 s; at most that)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_socket(p)
    p.set_defaults(run=run)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}" if value < 100 else f"{value:.0f}"


def _skips(skips: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(skips.items()))


def counts_line(label: str, c: dict[str, Any], shadow: bool = False) -> str:
    deny, ask = ("would deny", "would ask") if shadow else ("deny", "ask")
    calls = c.get("calls", 0)
    parts = [plural(calls, "call")]
    for key, name in (("denies", deny), ("asks", ask), ("allows", "allow")):
        if c.get(key):
            parts.append(f"{c[key]} {name}")
    for key, noun in (("errors", "error"), ("timeouts", "timeout")):
        if c.get(key):
            parts.append(plural(c[key], noun))
    if c.get("calls"):
        parts.append(f"p50 {_ms(c.get('p50'))} ms  p95 {_ms(c.get('p95'))} ms  p99 {_ms(c.get('p99'))} ms")
    if c.get("skips"):
        parts.append(f"skipped: {_skips(c['skips'])}")
    if c.get("rules"):  # the rules its answers named (a built-in guard's), most frequent first
        ranked = sorted(c["rules"].items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append("rules: " + ", ".join(f"{rule} {n}" for rule, n in ranked))
    return f"    {label:<7} " + "  ".join(parts) + "\n"


def run(args: argparse.Namespace) -> int:
    st = call(args, "stats", args.window)
    if args.json:
        print_json(st)
        return 0
    d = msgspec.to_builtins(st)
    w = sys.stdout.write
    if not d.get("enabled", True):
        w("stats are off (the daemon runs with --no-stats)\n")
        return 0
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(d["since"]))
    recent = f"last {d['window']:g} s"
    w(f"since {since}; recent: {recent}\n")
    hooks = d.get("hooks", [])
    w("\nhooks:\n" if hooks else "\nhooks: none has run yet\n")
    for h in hooks:
        ref = h["hook"]
        tag = "  (shadow: never applied)" if h.get("shadow") else ""
        w(f"  {ref['name']}  [{h['type']}, {ref['scope']}]  {h['point']}  {ref['source']}{tag}\n")
        w(counts_line("life", h["life"], h.get("shadow", False)))
        w(counts_line("recent", h["recent"], h.get("shadow", False)))
        if h.get("last_error"):
            when = time.strftime("%H:%M:%S", time.localtime(h["last_error_time"])) if h.get("last_error_time") else "?"
            w(f"    last error ({when}): {' '.join(str(h['last_error']).split())[:300]}\n")
    for key, title in (
        ("points", "points (whole decides)"),
        ("agents", "agents (whole decides)"),
        ("sessions", "sessions (whole decides)"),
    ):
        groups = d.get(key, [])
        if groups:
            w(f"\n{title}:\n")
        for g in groups:
            w(f"  {g['name']}\n")
            w(counts_line("life", g["life"]))
            w(counts_line("recent", g["recent"]))
    return 0
