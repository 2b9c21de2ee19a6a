"""`hookd replay`: journaled decide calls run again against today's hooks, then and now side by side."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

# Exit codes of `hookd replay` (docs/cli.md): like `diff`, 1 says that something differs.
SAME = 0
DIFFERS = 1


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from hookd.cli.common import add_json, add_socket

    p = sub.add_parser(
        "replay",
        help="run journaled decide calls again against today's hooks and show what would differ",
        description="Run journaled decide calls again against the hooks in force now and show, call by call, "
        "where the decision would differ from the one made then. Observer hooks do not run; decision hooks "
        "run with HOOKD_REPLAY=1 in their environment so they can skip side effects. Nothing replayed is "
        "published as a call. Exit status: 0 no call differs, 1 at least one differs, 2 bad arguments or "
        "the replay could not run, 3 the daemon is not reachable.",
        epilog="Examples: `hookd replay 42`, `hookd replay 40..60`, `hookd replay --since 1h --point 'tool.*'`, "
        "`hookd replay --since 1d --session s1 --json`. docs/replay.md.",
    )
    p.add_argument("calls", nargs="?", metavar="SEQ|A..B", help="one seq, or a range A..B (either end may be left out)")
    p.add_argument("--since", metavar="WHEN", help="calls of this long ago or newer (30s, 5m, 1h, 2d), or from this seq on")
    p.add_argument("--point", action="append", default=[], metavar="GLOB", help="only calls on these points (repeatable; globs)")
    p.add_argument("--session", "-s", action="append", default=[], metavar="ID", help="only calls of these sessions (repeatable)")
    p.add_argument("--limit", type=int, default=1000, metavar="N", help="replay at most N calls, oldest first (default 1000, max 10000)")
    p.add_argument("--all", action="store_true", help="show every replayed call, not only those that differ")
    add_json(p, "print the replay as JSON (then, now, changed fields and each hook's answer, per call)")
    add_socket(p)
    p.set_defaults(run=run)


def seq_range(text: str | None) -> tuple[int | None, int | None]:
    """``"42"`` -> (42, 42); ``"40..60"`` -> (40, 60); ``"40.."`` / ``"..60"`` leave one end open."""
    if text is None:
        return None, None
    first, sep, last = text.partition("..")
    try:
        if not sep:
            seq = int(first)
            if seq < 0:
                raise ValueError
            return seq, seq
        a = int(first) if first.strip() else None
        b = int(last) if last.strip() else None
    except ValueError:
        raise ValueError(f"not a seq or a range A..B: {text!r}") from None
    if (a is not None and a < 0) or (b is not None and b < 0):
        raise ValueError(f"a seq cannot be negative: {text!r}")
    if a is not None and b is not None and a > b:
        raise ValueError(f"the range {text!r} ends before it starts")
    return a, b


def request(args: argparse.Namespace, rid: int) -> Any:
    """The Replay request the arguments ask for (ValueError naming a bad one)."""
    from hookd_client import messages as m
    from hookd_client.stream import parse_since

    first, last = seq_range(args.calls)
    since_seq, since_age = parse_since(args.since)
    if since_seq is not None:
        first = since_seq if first is None else max(first, since_seq)
    if not 1 <= args.limit <= 10_000:
        raise ValueError(f"--limit must be between 1 and 10000, got {args.limit}")
    since = time.time() - since_age if since_age is not None else None
    return m.Replay(rid, first, last, since, list(args.point), list(args.session), args.limit)


def run(args: argparse.Namespace) -> int:
    from hookd_client import HookdError
    from hookd_client import messages as m
    from hookd_client.api import expect

    from hookd.cli.common import USAGE, connect, error_text, exit_code_of, fail, print_json

    try:
        with connect(args) as client:
            req = request(args, client._next_id())
            reply = client._call(req, expect(m.Replayed))
    except ValueError as exc:
        return fail(str(exc), USAGE)
    except HookdError as exc:
        code = exit_code_of(exc)
        return fail(error_text(exc), USAGE if code == 1 else code)
    if args.json:
        print_json(reply)
    else:
        write_text(reply, args.all)
    return DIFFERS if reply.differ else SAME


def _ref(ref: Any) -> str:
    return "no hook" if ref is None else f"{ref.name} ({ref.scope})"


def _verdict(v: Any) -> str:
    text = f"{v.decision or 'continue':<8} by {_ref(v.decided_by)}"
    if v.reason:
        text += f": {v.reason}"
    return text


def write_text(reply: Any, show_all: bool) -> None:
    from hookd.cli.common import plural

    out = sys.stdout.write
    for call in reply.calls:
        if not (call.differs or show_all):
            continue
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(call.time))
        mark = "DIFFERS" if call.differs else ("changed: " + ", ".join(call.changed) if call.changed else "same")
        where = f"  session {call.session}" if call.session else ""
        out(f"seq {call.seq}  {when}  {call.point}{where}  {mark}\n")
        out(f"  then: {_verdict(call.then)}\n")
        out(f"  now:  {_verdict(call.now)}\n")
        if call.hooks:
            out(f"  hooks that differ: {', '.join(_ref(h) for h in call.hooks)}\n")
        if call.answers:
            out("  each decision hook now:\n")
        for answer in call.answers:
            why = f": {answer.reason}" if answer.reason else ""
            out(f"    {_ref(answer.hook)} -> {answer.answer}{why}\n")
        answered = {_ref(answer.hook) for answer in call.answers}
        for nr in call.not_run:
            if _ref(nr.hook) not in answered:  # a hook's answer line already says it did not run
                out(f"    {_ref(nr.hook)} -> not run ({nr.reason}): {nr.message}\n")
    n = len(reply.calls)
    summary = f"{plural(n, 'call')} replayed, {reply.differ} differ{'s' if reply.differ == 1 else ''}"
    if reply.unreadable:
        summary += f", {reply.unreadable} could not be replayed (payload not journaled whole)"
    if reply.more:
        summary += "; more calls match: narrow the range or raise --limit"
    out(summary + "\n")
