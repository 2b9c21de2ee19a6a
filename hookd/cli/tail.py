"""`hookd tail`: watch the event stream live, and read back what happened.

History comes from the journal on disk (so it survives daemon restarts), then
from the daemon's memory for the events the journal writer has not reached
yet, then, with --follow, live. The journal's last seq is where the daemon
takes over, so no event shows twice and none goes missing between the two.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from hookd.cli.common import UNREACHABLE, USAGE, add_socket, fail
from hookd.cli.tail_output import Matcher, Printer, parse_decisions, parse_until


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "tail",
        help="show events as they happen (like journalctl -f)",
        description="Show hookd's events: every emit and decide (with its outcome) and the daemon's own "
        "hookd.* events (hook errors, config reloads, sessions, slow subscribers). History is read from the "
        "journal ($XDG_STATE_HOME/hookd/events.jsonl) and the daemon's memory; --follow keeps printing new events.",
        epilog="Examples: `hookd tail -f --point 'tool.*'`, `hookd tail --since 1h --session s1`, "
        "`hookd tail --since 2h --until 1h --decision deny,ask`, `hookd tail --json --since 10m | jq .point`. "
        "--since and --until take a duration ago (30s, 5m, 1h, 2d) or a seq number.",
    )
    p.add_argument("--point", action="append", default=[], metavar="GLOB", help="only points matching GLOB, e.g. 'tool.*' (repeatable)")
    p.add_argument("--session", "-s", action="append", default=[], metavar="ID", help="only this session (repeatable)")
    p.add_argument("--project", "-p", action="append", default=[], metavar="DIR", help="only this project (repeatable)")
    p.add_argument(
        "--decision",
        action="append",
        default=[],
        metavar="KIND",
        help="only decide events with this decision: allow, deny, ask, continue, or none (no hook decided); "
        "repeatable, or a comma list (deny,ask)",
    )
    p.add_argument("--since", metavar="WHEN", help="start this long ago (30s, 5m, 1h, 2d) or at this seq number")
    p.add_argument(
        "--until",
        metavar="WHEN",
        help="end this long ago (30s, 5m, 1h, 2d) or at this seq number (the last shown); reads the past only: no --follow",
    )
    p.add_argument("-n", "--lines", type=int, metavar="N", help="show the last N past events (default 10 without --since)")
    follow = p.add_mutually_exclusive_group()
    follow.add_argument(
        "-f", "--follow", dest="follow", action="store_true", default=None, help="keep printing new events (default: on a tty)"
    )
    follow.add_argument("--no-follow", dest="follow", action="store_false", help="print past events and exit")
    p.add_argument("--json", action="store_true", help="print JSON lines, one event (or gap) per line, for jq")
    p.add_argument(
        "--full",
        "-l",
        action="store_true",
        help="show whole lines on a terminal too (default there: cut to its width, ending in …); a pipe or file always gets whole lines",
    )
    p.add_argument("--color", choices=["auto", "always", "never"], default="auto", help="colour the human format (default: on a terminal)")
    p.add_argument("--journal", metavar="PATH", help="journal to read (default $XDG_STATE_HOME/hookd/events.jsonl)")
    p.add_argument("--team", action="store_true", help="follow the team's stream (every machine's events) instead (docs/team.md)")
    add_socket(p)
    p.set_defaults(run=run)


def _journal_history(path: str, since_seq: int | None, since_time: float | None, match: Matcher) -> tuple[list[Any], int | None]:
    """Matching journal events and the journal's newest seq (where the daemon takes over)."""
    from hookd.events import journal_files

    last = journal_files.last_event(path)
    if last is None:
        return [], None
    events = []
    end = match.until.seq
    for ev in journal_files.read(path, since_time):
        if ev.seq > last.seq or (end is not None and ev.seq > end):
            break
        if since_seq is not None and ev.seq < since_seq:
            continue
        if match(ev):
            events.append(ev)
    return events, last.seq


def run(args: argparse.Namespace) -> int:
    import time

    from hookd_client import Client, HookdError
    from hookd_client.messages import Gap, Live
    from hookd_client.stream import parse_since

    from hookd.events import journal_files

    if args.team:
        from hookd.cli.tail_team import run_team

        return run_team(args)
    try:
        since_seq, since_age = parse_since(args.since)
    except ValueError as exc:
        return fail(f"--since: {exc}", USAGE)
    try:
        decisions = parse_decisions(args.decision)
        until = parse_until(args.until, args.since, time.time())
    except ValueError as exc:
        return fail(str(exc), USAGE)
    if args.lines is not None and args.lines < 0:
        return fail("-n/--lines must be 0 or more", USAGE)
    if until and args.follow:
        return fail("--until reads the past: it cannot go with --follow", USAGE)
    lines = args.lines if args.lines is not None else (None if args.since else 10)
    follow = False if until else sys.stdout.isatty() if args.follow is None else args.follow
    colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    projects = [os.path.abspath(p) for p in args.project]
    match = Matcher(args.point, args.session, projects, decisions, until)
    printer = Printer(args.json, colour, flush=follow, fit=sys.stdout.isatty() and not args.full)
    since_time = time.time() - since_age if since_age is not None else None

    path = args.journal or journal_files.default_path()
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
            from hookd.cli.common import error_text, exit_code_of

            return fail(error_text(exc), exit_code_of(exc))
        not_running = exc.message
        sub = None  # type: ignore[assignment]

    def backlog() -> Iterator[Any]:
        yield from past
        if sub is None:
            return
        for item in sub:
            if isinstance(item, Live):
                return
            if isinstance(item, Gap):
                yield item
                continue
            if since_time is not None and item.time < since_time:
                continue
            if until.seq is not None and item.seq > until.seq:
                return  # in seq order: nothing after it is shown either
            if match.kept(item):  # the daemon applied the subscription's own filters
                yield item

    shown: Iterable[Any] = backlog()
    if lines is not None:
        shown = collections.deque(shown, maxlen=lines)  # reads the whole replay, even for -n 0
    for item in shown:
        printer(item)
    if sub is None:
        # The journal alone answers questions about the past; following needs the daemon.
        return fail(not_running, UNREACHABLE) if follow else 0
    if not follow:
        sub.close()
        return 0
    if printer.last_seq is None and sub.subscribed is not None:
        printer.last_seq = sub.subscribed.last  # nothing shown yet: resume after what was published before we came
    return Follower(args, printer, match, projects, path).run(sub)


class Follower:
    """Prints live events and, like ``journalctl -f``, outlives the daemon.

    When the stream ends (the daemon stopped or restarted), it waits for a
    daemon to answer on the socket again, prints what the journal got after
    the last event shown, a ``-- daemon restarted --`` line, and goes on live
    from there: no event twice, none lost that the journal or the new daemon has.
    """

    RETRY_MAX = 1.0  # seconds between attempts to reach the daemon again

    def __init__(self, args: argparse.Namespace, printer: Printer, match: Matcher, projects: list[str], journal_path: str) -> None:
        self.args = args
        self.printer = printer
        self.match = match
        self.projects = projects
        self.journal_path = journal_path

    def _pid(self) -> int | None:
        from hookd_client import Client, HookdError

        try:
            with Client(self.args.socket, name="hookd-tail", reconnect=0) as c:
                return int(c.status().pid)
        except HookdError:
            return None

    def run(self, sub: Any) -> int:
        from hookd_client import HookdError
        from hookd_client.messages import Gap, Live

        pid = self._pid()
        while True:
            try:
                for item in sub:
                    if isinstance(item, Gap) or (not isinstance(item, Live) and self.match.kept(item)):
                        self.printer(item)
                return 0
            except HookdError as exc:
                if exc.code in ("untrusted_daemon", "bad_socket_path", "version_mismatch"):
                    return fail(f"the stream ended: {exc.message}", UNREACHABLE)
            finally:
                sub.close()
            sub, pid = self._resume(pid)

    def _resume(self, old_pid: int | None) -> tuple[Any, int | None]:
        import time

        from hookd_client import Client, HookdError

        told = False
        delay = 0.05
        while True:
            pid = self._pid()
            if pid is not None:
                after = self.printer.last_seq
                since = (after or 0) + 1
                past, journal_last = _journal_history(self.journal_path, since, None, self.match)
                resume = max(since, (journal_last or 0) + 1)
                client = Client(self.args.socket, name="hookd-tail", connect=False)
                sub = client.subscribe(
                    self.args.point, sessions=self.args.session, projects=self.projects, since=resume, follow=True, queue=1_000_000
                )
                try:
                    sub.open()
                except HookdError:
                    sub.close()
                else:
                    self.printer.marker("daemon restarted" if pid != old_pid else "stream reconnected", after)
                    for item in past:
                        self.printer(item)
                    return sub, pid
            if not told:
                sys.stderr.write("hookd: the daemon stopped; waiting for it to come back (Ctrl-C to quit)\n")
                sys.stderr.flush()
                told = True
            time.sleep(delay)
            delay = min(self.RETRY_MAX, delay * 2)
