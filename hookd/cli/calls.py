"""emit, decide, explain, status: calls to a running daemon."""

from __future__ import annotations

import argparse
import sys

import msgspec

from .common import add_socket, add_target, connect, fail, print_json, read_payload


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "emit",
        help="fire observer hooks of a point",
        description="Fire the observer hooks of POINT (and of the catch-all point `event`) with a JSON payload; "
        "decision hooks do not run on emit. Prints JSON {observers, errors}: how many observers were started "
        "(with --wait: ran) and, with --wait, the ones that failed.",
    )
    p.add_argument("point", help="hook point (`hookd points` lists them)")
    add_target(p)
    p.add_argument("--payload", metavar="JSON", help="payload as a JSON object, or - to read it from stdin")
    p.add_argument("--wait", action="store_true", help="wait for the observers and report their errors")
    add_socket(p)
    p.set_defaults(run=run_emit)

    p = sub.add_parser(
        "decide",
        help="run the decision chain of a point",
        description="Run the decision hooks of POINT and print the outcome as JSON on stdout: decision, reason, "
        "decided_by, errors, and not_run (every configured hook that did not run, with its reason). Each hook that did "
        "not run is also named on stderr, one line each, for a human. "
        "Exits 0 whatever the decision is; non-zero only when the call itself fails.",
    )
    p.add_argument("point", help="hook point (`hookd points` lists them)")
    add_target(p)
    p.add_argument("--payload", metavar="JSON", help="payload as a JSON object, or - to read it from stdin")
    p.add_argument("--json", action="store_true", help="the JSON only: no line on stderr for the hooks that did not run")
    add_socket(p)
    p.set_defaults(run=run_decide)

    p = sub.add_parser(
        "explain",
        help="show the hooks a call would run, in order",
        description="List the decision hooks and observers a call on POINT would run, in order, with scope, priority and source.",
    )
    p.add_argument("point", help="hook point (`hookd points` lists them)")
    add_target(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    add_socket(p)
    p.set_defaults(run=run_explain)

    p = sub.add_parser(
        "status",
        help="show the daemon's status",
        description="Uptime, connections, sessions, hooks, calls, and the persistent hook workers with their state.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    add_socket(p)
    p.set_defaults(run=run_status)


def _call(args: argparse.Namespace, method: str, *pos: object, **kw: object) -> object:
    from hookd_client import HookdError

    try:
        with connect(args) as client:
            return getattr(client, method)(*pos, **kw)
    except HookdError as exc:
        raise SystemExit(fail(exc.message if exc.code == "not_running" else str(exc))) from None


def run_emit(args: argparse.Namespace) -> int:
    try:
        payload = read_payload(args.payload)
    except ValueError as exc:
        return fail(str(exc), 2)
    accepted = _call(args, "emit", args.point, payload, session=args.session, project=args.project, wait=args.wait)
    out = {"observers": accepted.observers, "errors": msgspec.to_builtins(accepted.errors)}  # type: ignore[attr-defined]
    print_json(out)
    return 0


def run_decide(args: argparse.Namespace) -> int:
    try:
        payload = read_payload(args.payload)
    except ValueError as exc:
        return fail(str(exc), 2)
    outcome = _call(args, "decide", args.point, payload, session=args.session, project=args.project)
    out = msgspec.to_builtins(outcome)
    out.pop("type", None)
    out.pop("id", None)
    out.setdefault("decision", None)
    out.setdefault("not_run", [])
    print_json(out)
    for n in [] if args.json else out["not_run"]:
        # A guard that did not run must never read as an allow, even to someone skimming the JSON.
        detail = f" ({n['message']})" if n.get("message") else ""
        sys.stderr.write(f"hookd: guard {n['hook']['name']!r} did not run: {n['reason']}{detail}\n")
    return 0


def _row(e: object) -> str:
    d = msgspec.to_builtins(e)
    state = "" if d.get("enabled", True) else "  (disabled)"
    state += "" if d.get("trusted", True) else "  (untrusted: `hookd hooks` says why)"
    return f"  {d['scope']:<8} {d.get('priority', 0):>5}  {d['name']:<28} {d['source']}{state}"


def run_explain(args: argparse.Namespace) -> int:
    chain = _call(args, "explain", args.point, session=args.session, project=args.project)
    if args.json:
        print_json(chain)
        return 0
    out = sys.stdout
    out.write(f"{args.point}\n")
    out.write("decision hooks, in order:\n" if chain.decision_hooks else "decision hooks: none\n")  # type: ignore[attr-defined]
    for e in chain.decision_hooks:  # type: ignore[attr-defined]
        out.write(_row(e) + "\n")
    out.write("observers:\n" if chain.observers else "observers: none\n")  # type: ignore[attr-defined]
    for e in chain.observers:  # type: ignore[attr-defined]
        out.write(_row(e) + "\n")
    return 0


def run_status(args: argparse.Namespace) -> int:
    st = _call(args, "status")
    if args.json:
        print_json(st)
        return 0
    d = msgspec.to_builtins(st)
    d["uptime"] = f"{d.get('uptime', 0):.1f} s"
    keys = ("version", "pid", "socket", "uptime", "connections", "sessions", "hooks", "calls", "emits", "decides", "hook_errors")
    for key in (*keys, "subscribers", "events"):
        sys.stdout.write(f"{key + ':':<13}{d.get(key, 0)}\n")
    for w in d.get("workers", []):  # persistent hook workers
        detail = f"pid {w['pid']}" if w.get("pid") else " ".join(w.get("error", "").split())[:100]
        sys.stdout.write(
            f"worker:      {w['name']}  {w['state']}  served {w.get('served', 0)}  restarts {w.get('restarts', 0)}  {detail}\n"
        )
    from hookd.team.statuslines import lines as team_lines

    sys.stdout.writelines(line + "\n" for line in team_lines(d.get("team")))
    return 0
