"""`hookd tail`: watch the event stream live, and read back what happened.

History comes from the journal on disk (so it survives daemon restarts), then
from the daemon's memory for the events the journal writer has not reached
yet, then, with --follow, live. The journal's last seq is where the daemon
takes over, so no event shows twice and none goes missing between the two.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from .common import add_socket, fail


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tail",
        help="show events as they happen (like journalctl -f)",
        description="Show hookd's events: every emit and decide (with its outcome) and the daemon's own "
        "hookd.* events (hook errors, config reloads, sessions, slow subscribers). History is read from the "
        "journal ($XDG_STATE_HOME/hookd/events.jsonl) and the daemon's memory; --follow keeps printing new events.",
        epilog="Examples: `hookd tail -f --point 'tool.*'`, `hookd tail --since 1h --session s1`, "
        "`hookd tail --json --since 10m | jq .point`. --since takes a duration (30s, 5m, 1h, 2d) or a seq number.",
    )
    p.add_argument("--point", action="append", default=[], metavar="GLOB", help="only points matching GLOB, e.g. 'tool.*' (repeatable)")
    p.add_argument("--session", "-s", action="append", default=[], metavar="ID", help="only this session (repeatable)")
    p.add_argument("--project", "-p", action="append", default=[], metavar="DIR", help="only this project (repeatable)")
    p.add_argument("--since", metavar="WHEN", help="start this long ago (30s, 5m, 1h, 2d) or at this seq number")
    p.add_argument("-n", "--lines", type=int, metavar="N", help="show the last N past events (default 10 without --since)")
    follow = p.add_mutually_exclusive_group()
    follow.add_argument(
        "-f", "--follow", dest="follow", action="store_true", default=None, help="keep printing new events (default: on a tty)"
    )
    follow.add_argument("--no-follow", dest="follow", action="store_false", help="print past events and exit")
    p.add_argument("--json", action="store_true", help="print JSON lines, one event (or gap) per line, for jq")
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour the human format (default: on a terminal)")
    p.add_argument("--journal", metavar="PATH", help="journal to read (default $XDG_STATE_HOME/hookd/events.jsonl)")
    p.add_argument("--team", action="store_true", help="follow the team's stream (every machine's events) instead (docs/team.md)")
    add_socket(p)
    p.set_defaults(run=run)


class Matcher:
    """The subscription filter, applied to journal lines on this side."""

    def __init__(self, points: list[str], sessions: list[str], projects: list[str]) -> None:
        self.points = points
        self.sessions = set(sessions)
        self.projects = {os.path.normpath(p) for p in projects}

    def __call__(self, ev: Any) -> bool:
        if self.points and not any(fnmatch.fnmatchcase(ev.point, g) for g in self.points):
            return False
        if self.sessions and ev.session not in self.sessions:
            return False
        return not self.projects or ev.project in self.projects


class Printer:
    def __init__(self, as_json: bool, colour: bool, flush: bool) -> None:
        import msgspec

        from hookd import tailfmt

        from . import termsafe

        self.fmt = tailfmt
        self.termsafe = termsafe
        # tailfmt cleans every field taken from the event; the stream filter would also escape our colours.
        self.out = termsafe.unfiltered(sys.stdout)
        self.as_json = as_json
        self.colour = colour
        self.flush = flush
        self.encode = msgspec.json.Encoder().encode

    def __call__(self, item: Any) -> None:
        from hookd_client.messages import Gap

        if self.as_json:
            text = self.termsafe.json_text(self.encode(item).decode())
        elif isinstance(item, Gap):
            text = self.fmt.gap_line(item, self.colour)
        else:
            text = self.fmt.line(item, self.colour)
        self.out.write(text + "\n")
        if self.flush:
            self.out.flush()


def _journal_history(path: str, since_seq: int | None, since_time: float | None, match: Matcher) -> tuple[list[Any], int | None]:
    """Matching journal events and the journal's newest seq (where the daemon takes over)."""
    from hookd import journal

    last = journal.last_event(path)
    if last is None:
        return [], None
    events = []
    for ev in journal.read(path, since_time):
        if ev.seq > last.seq:
            break
        if since_seq is not None and ev.seq < since_seq:
            continue
        if match(ev):
            events.append(ev)
    return events, last.seq


def run(args: argparse.Namespace) -> int:
    import time

    from hookd_client import Client, HookdError
    from hookd_client.messages import Live
    from hookd_client.stream import parse_since

    from hookd import journal

    if args.team:
        from hookd.team.tail import run_team

        return run_team(args)
    try:
        since_seq, since_age = parse_since(args.since)
    except ValueError as exc:
        return fail(f"--since: {exc}", 2)
    if args.lines is not None and args.lines < 0:
        return fail("-n/--lines must be 0 or more", 2)
    lines = args.lines if args.lines is not None else (None if args.since else 10)
    follow = sys.stdout.isatty() if args.follow is None else args.follow
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    projects = [os.path.abspath(p) for p in args.project]
    match = Matcher(args.point, args.session, projects)
    printer = Printer(args.json, colour, flush=follow)
    since_time = time.time() - since_age if since_age is not None else None

    path = args.journal or journal.default_path()
    past, journal_last = _journal_history(path, since_seq, since_time, match)

    # The daemon replays what the journal does not have yet, then (with follow) goes live.
    if journal_last is not None:
        replay: int | str | None = max(journal_last + 1, since_seq or 0)
    elif since_seq is not None:
        replay = since_seq
    elif since_age is not None:
        replay = f"{since_age}s"
    else:
        replay = 0
    client = Client(args.socket, name="hookd-tail", connect=False)
    sub = client.subscribe(args.point, sessions=args.session, projects=projects, since=replay, follow=follow, queue=1_000_000).mark_live()
    not_running = ""
    try:
        sub.open()
    except HookdError as exc:
        if exc.code != "not_running":
            return fail(str(exc))
        not_running = exc.message
        sub = None  # type: ignore[assignment]

    def backlog() -> Iterator[Any]:
        yield from past
        if sub is None:
            return
        for item in sub:
            if isinstance(item, Live):
                return
            if since_time is not None and getattr(item, "time", since_time) < since_time:
                continue
            yield item

    shown: Iterable[Any] = backlog()
    if lines is not None:
        shown = collections.deque(shown, maxlen=lines)  # reads the whole replay, even for -n 0
    for item in shown:
        printer(item)
    if sub is None:
        # The journal alone answers questions about the past; following needs the daemon.
        return fail(not_running) if follow else 0
    if not follow:
        sub.close()
        return 0
    try:
        for item in sub:
            if not isinstance(item, Live):
                printer(item)
    except HookdError as exc:
        return fail(f"the stream ended: {exc.message}")
    finally:
        sub.close()
    return 0
