"""emit, decide, explain, status: calls to a running daemon."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import msgspec

from hookd.cli.common import (
    USAGE,
    add_cwd_target,
    add_socket,
    add_target,
    call,
    connect,
    cwd_project,
    exit_code_of,
    fail,
    print_json,
    project_dir,
    read_payload,
)


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "emit",
        help="fire observer hooks of a point",
        description="Fire the observer hooks of POINT (and of the catch-all point `event`) with a JSON payload; "
        "decision hooks do not run on emit. Prints JSON {observers, errors}: how many observers were started "
        "(with --wait: ran) and, with --wait, the ones that failed.",
    )
    _point_and_payload(p, add_target, "payload as a JSON object, or - to read it from stdin")
    p.add_argument("--wait", action="store_true", help="wait for the observers and report their errors")
    p.add_argument("--json", action="store_true", help="the JSON only (emit always prints it): no note of decision hooks not asked")
    add_socket(p)
    p.set_defaults(run=run_emit)

    p = sub.add_parser(
        "decide",
        help="run the decision chain of a point",
        description="Run the decision hooks of POINT and print the outcome as JSON on stdout: decision, reason, "
        "decided_by, errors, and not_run (every configured hook that did not run, with its reason). Each hook that did "
        "not run is also named on stderr, one line each, for a human. With --trace, a readable account of each hook "
        "instead (what it was given, what it answered and wrote, how long it took, or why it did not run; --json keeps the "
        "JSON, with the trace in it). "
        "Exits 0 whatever the decision is; non-zero only when the call itself fails. "
        "The project is the current directory, as for check and doctor: --project names another, --global leaves "
        "every project's hooks out, and --session alone takes the session's own project.",
    )
    _point_and_payload(p, add_cwd_target, "payload as a JSON object, or - to read it from stdin")
    p.add_argument("--json", action="store_true", help="the JSON only: no line on stderr for the hooks that did not run")
    p.add_argument(
        "--trace",
        action="store_true",
        help="show each hook's input, answer, output excerpts and time, and why any did not run (as text; with --json, "
        "in the outcome's `trace`)",
    )
    add_socket(p)
    p.set_defaults(run=run_decide)

    p = sub.add_parser(
        "explain",
        help="show the hooks a call would run, in order",
        description="List the decision hooks and observers a call on POINT would run, in order, with scope, priority and source. "
        "With --payload, each hook is marked by what it would do with that payload: `runs`, or `skipped` with the "
        "`match` entry that does not match (and `off`, `untrusted` for hooks that do not run at all); a built-in hook "
        "(`builtin: PACK`) that runs also says what its packs would answer and by which rule (pure code, run here). No hook "
        "process runs. "
        "The project is the current directory, as for check and doctor: --project names another, --global leaves "
        "every project's hooks out, and --session alone takes the session's own project.",
        epilog='Example: hookd explain tool.approval.pre --payload \'{"toolName": "execute_command", "args": {"command": "rm -rf /"}}\'',
    )
    _point_and_payload(p, add_cwd_target, "payload as a JSON object, or - for stdin: mark the hooks whose match skips it")
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


def _point_and_payload(p: argparse.ArgumentParser, add_where: Callable[[argparse.ArgumentParser], None], payload_help: str) -> None:
    """What every call on a point takes: the point, where the call is made (``add_where``), and its payload."""
    p.add_argument("point", help="hook point (`hookd points` lists them)")
    add_where(p)
    p.add_argument("--payload", metavar="JSON", help=payload_help)


_call = call


def run_emit(args: argparse.Namespace) -> int:
    try:
        payload = read_payload(args.payload)
        project = project_dir(args.project)
    except ValueError as exc:
        return fail(str(exc), USAGE)
    accepted = _call(args, "emit", args.point, payload, session=args.session, project=project, wait=args.wait)
    out = {"observers": accepted.observers, "errors": msgspec.to_builtins(accepted.errors)}  # type: ignore[attr-defined]
    print_json(out)
    if not args.json:
        _unasked(args, project)
    return 0


def _unasked(args: argparse.Namespace, project: str | None) -> None:
    """Name the decision hooks an emit did not ask, so that it is never taken for a call they let through."""
    from hookd.core.points import decision_points

    if args.point not in decision_points():
        return
    try:
        with connect(args) as client:
            chain = client.explain(args.point, session=args.session, project=project)
    except Exception:  # the emit itself went through: a note that cannot be made is left out
        return
    names = [h.name for h in chain.decision_hooks if h.enabled]
    if names:
        which = ", ".join(names)
        note = f"the decision hooks of {args.point} were not asked ({which}): `hookd decide` asks them"
        sys.stderr.write(f"hookd: emit runs observers only; {note}\n")


def run_decide(args: argparse.Namespace) -> int:
    try:
        payload = read_payload(args.payload)
        project = cwd_project(args)
    except ValueError as exc:
        return fail(str(exc), USAGE)
    trace = getattr(args, "trace", False)
    extra = {"trace": True} if trace else {}
    outcome = _call(args, "decide", args.point, payload, session=args.session, project=project, **extra)
    out = msgspec.to_builtins(outcome)
    out.pop("type", None)
    out.pop("id", None)
    out.setdefault("decision", None)
    out.setdefault("not_run", [])
    if trace and not args.json:
        from hookd.cli.tracefmt import render

        sys.stdout.write(render(args.point, out))
        return 0
    print_json(out)
    for n in [] if args.json else out["not_run"]:
        # A guard that did not run must never read as an allow, even to someone skimming the JSON.
        detail = f" ({n['message']})" if n.get("message") else ""
        sys.stderr.write(f"hookd: guard {n['hook']['name']!r} did not run: {n['reason']}{detail}\n")
    return 0


def _row(e: object, verdict: str = "") -> str:
    d = msgspec.to_builtins(e)
    state = "" if d.get("enabled", True) else "  (disabled)"
    state += "" if d.get("trusted", True) else "  (untrusted: `hookd hooks` says why)"
    state += "  (shadow: runs beside the chain, never applied)" if d.get("shadow") else ""
    mark = f"{verdict:<8} " if verdict else ""
    return f"  {mark}{d['scope']:<8} {d.get('priority', 0):>5}  {d['name']:<28} {d['source']}{state}"


def verdict(entry: object, info: object | None, payload: dict[str, object]) -> tuple[str, str]:
    """(runs | skipped | off | untrusted, why) for one hook of the chain and a payload."""
    from hookd.core.matcher import Matcher, lookup

    if not getattr(entry, "enabled", True):
        return "off", "disabled"
    if not getattr(entry, "trusted", True):
        return "untrusted", "its file is not trusted"
    match = dict(getattr(info, "match", {}) or {})
    for path, pattern in match.items():
        if not Matcher({path: pattern})(payload):
            found = lookup(payload, tuple(path.split(".")))
            seen = "the payload has no such field" if found is _missing() else f"got {found!r}"
            return "skipped", f"match {path}: {pattern!r} does not match ({seen})"
    return "runs", f"match {match}" if match else ""


def builtin_answer(info: object | None, point: str, payload: dict[str, object], project: str | None) -> dict[str, str] | None:
    """What a built-in hook's packs answer ``payload`` (pure code: explain runs them here, as the daemon
    would): {decision, rule, reason}, or None when they abstain or the hook is not a built-in one."""
    packs = list(getattr(info, "builtin", None) or [])
    if not packs:
        return None
    from hookd.core.hooks import CallContext
    from hookd.runners.builtin import BuiltinRunner

    try:
        answer = BuiltinRunner(packs, dict(getattr(info, "options", None) or {})).answer_now(
            info,  # type: ignore[arg-type]
            payload,  # type: ignore[arg-type]
            CallContext(point, None, project),
        )
    except Exception as exc:  # as the daemon takes it: a failed hook, under its on_error
        return {"decision": "error", "rule": "", "reason": f"{type(exc).__name__}: {exc}"}
    if answer is None:
        return None
    return {"decision": answer.decision or "", "rule": answer.rule or "", "reason": answer.reason or ""}


def _missing() -> object:
    from hookd.core import matcher

    return matcher.MISSING


def _infos(listing: object, session: str | None) -> dict[tuple[str, str, str, str], object]:
    """The hooks in force by (scope, name, source, point); a session's own hooks win over another session's."""
    out: dict[tuple[str, str, str, str], object] = {}
    for h in listing.hooks:  # type: ignore[attr-defined]
        key = (h.scope, h.name, h.source, h.point)
        if h.scope == "session" and key in out and h.owner != session:
            continue
        out[key] = h
    return out


def run_explain(args: argparse.Namespace) -> int:
    from hookd_client import HookdError

    try:
        payload = read_payload(args.payload) if args.payload is not None else None
        project = cwd_project(args)
    except ValueError as exc:
        return fail(str(exc), USAGE)
    try:
        with connect(args) as client:
            chain = client.explain(args.point, session=args.session, project=project)
            # Every hook the daemon holds (sessions included): the chain above names which of them apply.
            listing = client.list_hooks(None) if payload is not None else None
    except HookdError as exc:
        from hookd.cli.common import error_text

        return fail(error_text(exc), exit_code_of(exc))
    rows: dict[str, list[tuple[object, tuple[str, str]]]] = {"decision_hooks": [], "observers": []}
    infos = _infos(listing, args.session) if listing is not None else {}
    # A built-in hook that runs on the payload: what its packs would answer, and by which rule.
    would: dict[int, dict[str, str] | None] = {}
    for kind, entries in rows.items():
        for e in getattr(chain, kind):
            info = infos.get((e.scope, e.name, e.source, e.point))
            entries.append((e, verdict(e, info, payload) if payload is not None else ("", "")))
            if payload is not None and entries[-1][1][0] == "runs" and getattr(info, "builtin", None):
                would[id(e)] = builtin_answer(info, args.point, payload, project)
    if args.json:
        out = msgspec.to_builtins(chain)
        if payload is not None:
            for kind, entries in rows.items():
                for d, (e, (state, why)) in zip(out.get(kind, []), entries, strict=True):
                    d["verdict"], d["why"] = state, why
                    if id(e) in would:
                        d["would"] = would[id(e)]
        print_json(out)
        return 0
    w = sys.stdout.write
    # Which project's hooks are in the chain: the current directory's unless told otherwise, so say which.
    if project is not None:
        w(f"{args.point}  (project {project})\n")
    elif args.session is not None:
        w(f"{args.point}  (session {args.session}: its project, if it has one)\n")
    else:
        w(f"{args.point}  (no project)\n")
    for kind, title in (("decision_hooks", "decision hooks"), ("observers", "observers")):
        entries = rows[kind]
        w(f"{title}, in order:\n" if entries else f"{title}: none\n")
        for e, (state, why) in entries:
            # A disabled or untrusted hook's row already says so: its why would say it twice.
            w(_row(e, state) + (f"  ({why})" if why and state == "skipped" else "") + "\n")
            if id(e) in would:
                answer = would[id(e)]
                w(f"{'':<12}builtin: {_would(answer)}\n")
    return 0


def _would(answer: dict[str, str] | None) -> str:
    if answer is None:
        return "no rule of its packs applies (it abstains)"
    if answer["decision"] == "error":
        return f"its packs fail on this payload ({answer['reason']}): its on_error decides"
    rule, reason = answer["rule"], answer["reason"]
    reason = reason.removeprefix(f"{rule}: ")  # the reason the agent reads starts with its rule: said once here
    return f"would {answer['decision']} by rule {rule}: {reason}"


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
    journal = d.get("journal") or {}
    if journal.get("enabled"):
        health = "FAILING, events are being lost" if journal.get("failing") else "ok"
        counts = f"written {journal.get('written', 0)}  lost {journal.get('lost', 0)}"
        sys.stdout.write(f"journal:     {journal.get('path')}  {counts}  {health}\n")
    elif journal:
        sys.stdout.write("journal:     off\n")
    sys.stdout.writelines(_plugin_lines(d.get("plugins", [])))
    from hookd.team.statuslines import lines as team_lines

    sys.stdout.writelines(line + "\n" for line in team_lines(d.get("team")))
    return 0


def _plugin_lines(plugins: list[dict[str, object]]) -> list[str]:
    """A line per plugin directory with something in it; the directories the daemon looks in that do
    not exist are named once, on one line (the daemon reports them as `empty`, as it does a directory
    with no plugin in it)."""
    lines = []
    absent = []
    for p in plugins:
        directory = str(p["directory"])
        if p["state"] == "empty" and not os.path.isdir(directory):
            absent.append(directory)
            continue
        detail = str(p.get("progress") or p.get("error") or (f"pid {p['pid']}" if p.get("pid") else ""))
        where = f" ({p['owner']})" if p.get("owner") else ""
        state = "empty (no plugin in it)" if p["state"] == "empty" else p["state"]
        lines.append(f"plugins:     {directory}{where}  {state}  {' '.join(detail.split())[:160]}".rstrip() + "\n")
    if absent and not lines:
        lines.append(f"plugins:     no plugin directory (not present: {', '.join(absent)})\n")
    elif absent:
        lines.append(f"plugins:     not present: {', '.join(absent)}\n")
    return lines
