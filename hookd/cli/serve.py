"""`hookd serve`: run the daemon in the foreground.

Every option is checked before anything starts: a value the daemon could not
honour (a negative timeout, a frame limit too small to carry a hello, a socket
path no socket can have) is refused with a message naming the option and exit
code 2, as argparse does for a malformed one. Nothing is clamped silently.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable

# The smallest frame limit that still carries a hello with a long client name and an ordinary
# decide with its reply; below it every client would be refused at its first frame.
MIN_FRAME = 4096
MAX_FRAME = 1 << 30  # the length prefix is 32 bits; clients read at most this
KIB, MIB = 1 << 10, 1 << 20


def _seconds(*, zero: bool = False, most: float | None = None) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number of seconds, got {text!r}")
        if value < 0 or (value == 0 and not zero):
            raise argparse.ArgumentTypeError(f"must be {'0 or more' if zero else 'more than 0'} seconds, got {text}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most:g} seconds, got {text}")
        return value

    return parse


def _count(least: int, unit: str = "", most: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number{' of ' + unit if unit else ''}, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}{' ' + unit if unit else ''}, got {text}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"must be at most {most}{' ' + unit if unit else ''}, got {text}")
        return value

    return parse


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="run the daemon in the foreground",
        description="Run the hookd daemon in the foreground until SIGTERM or SIGINT. "
        "Logs go to stderr (console on a terminal, JSON lines otherwise) and, with --log-file, also to a file "
        "as JSON lines. Started by systemd (see `hookd install-systemd`), it serves the socket it is passed "
        "and reports readiness, status and watchdog pings to the service manager. Every option is checked "
        "before the daemon starts; a bad value exits 2 with a message naming it.",
    )
    p.add_argument("--socket", metavar="PATH", help="socket to listen on (default: see `hookd --help`)")
    p.add_argument(
        "--max-frame",
        type=_count(MIN_FRAME, "bytes", MAX_FRAME),
        metavar="BYTES",
        default=1 << 20,
        help=f"largest accepted frame (default 1 MiB; {MIN_FRAME} to {MAX_FRAME})",
    )
    p.add_argument(
        "--hook-timeout", type=_seconds(most=3600), metavar="SECONDS", default=30.0, help="default per-hook timeout (default 30)"
    )
    p.add_argument(
        "--drain", type=_seconds(zero=True), metavar="SECONDS", default=3.0, help="how long a stop waits for in-flight calls (default 3)"
    )
    p.add_argument(
        "--session-grace",
        type=_seconds(zero=True),
        metavar="SECONDS",
        default=60.0,
        help="how long a session and its command hooks outlive the connection that attached it (default 60)",
    )
    p.add_argument(
        "--approval-timeout",
        type=_seconds(most=86400),
        metavar="SECONDS",
        default=120.0,
        help="how long a call offered to approvers waits for an answer (default 120; docs/approvals.md)",
    )
    p.add_argument(
        "--approval-default",
        choices=["deny", "allow"],
        default="deny",
        help="what decides an offered call nobody answered in time (default deny)",
    )
    p.add_argument("--max-sessions", type=_count(1), metavar="N", default=100_000, help="most sessions the daemon holds (default 100000)")
    p.add_argument("--max-hooks-per-session", type=_count(1), metavar="N", default=1000, help="most hooks one session holds (default 1000)")
    p.add_argument("--no-user-hooks", action="store_true", help="do not load the global hook files")
    level = os.environ.get("HOOKD_LOG_LEVEL", "info")
    p.add_argument(
        "--ready-fd",
        type=int,
        metavar="FD",
        help="once the global hook files are loaded and the socket is served, write READY=1 (and STATUS=, MAINPID=) "
        "lines to this inherited file descriptor and close it; end of file before that means the daemon exited",
    )
    p.add_argument(
        "--log-level",
        default=level if level in ("debug", "info", "warning", "error") else "info",
        choices=["debug", "info", "warning", "error"],
        help="log level (default info, or $HOOKD_LOG_LEVEL)",
    )
    p.add_argument("--log-json", action="store_true", default=None, help="log JSON lines even on a terminal")
    p.add_argument("--log-file", metavar="PATH", help="also append the log to PATH, as JSON lines (for a daemon run by hand)")
    # --- event stream
    p.add_argument(
        "--history", type=_count(1), metavar="N", default=10_000, help="events kept in memory for `subscribe --since` (default 10000)"
    )
    p.add_argument(
        "--history-bytes", type=_count(MIB, "bytes"), metavar="BYTES", default=64 << 20, help="bytes of them kept, at most (default 64 MiB)"
    )
    p.add_argument("--no-journal", action="store_true", help="do not write the event journal")
    p.add_argument("--journal", metavar="PATH", help="event journal file (default $XDG_STATE_HOME/hookd/events.jsonl)")
    p.add_argument(
        "--journal-max-bytes", type=_count(KIB, "bytes"), metavar="BYTES", default=16 << 20, help="rotate past this size (default 16 MiB)"
    )
    p.add_argument("--journal-keep", type=_count(0), metavar="N", default=5, help="rotated journal files kept (default 5)")
    # --- stats (docs/observe.md)
    p.add_argument("--no-stats", action="store_true", help="do not count hook runs (`hookd stats` then says stats are off)")
    p.add_argument(
        "--stats-window", type=_seconds(), metavar="SECONDS", default=300.0, help="the recent window `hookd stats` shows (default 300)"
    )
    # --- connection limits (docs/protocol.md, "Limits")
    p.add_argument(
        "--hello-timeout", type=_seconds(), metavar="SECONDS", default=10.0, help="close a connection not greeted by then (default 10)"
    )
    p.add_argument(
        "--frame-timeout", type=_seconds(), metavar="SECONDS", default=30.0, help="close on a partial frame older than this (default 30)"
    )
    p.add_argument(
        "--idle-timeout",
        type=_seconds(),
        metavar="SECONDS",
        default=900.0,
        help="close a silent connection that holds nothing (default 900)",
    )
    p.add_argument("--max-connections", type=_count(1), metavar="N", default=4096, help="connections served at once (default 4096)")
    p.add_argument(
        "--max-write-buffer",
        type=_count(64 * KIB, "bytes"),
        metavar="BYTES",
        default=32 << 20,
        help="unread bytes before a peer is dropped (default 32 MiB)",
    )
    p.add_argument(
        "--max-pending-bytes",
        type=_count(MIN_FRAME, "bytes"),
        metavar="BYTES",
        default=16 << 20,
        help="queued requests before reading stops (default 16 MiB, at least --max-frame)",
    )
    p.add_argument(
        "--max-held-bytes",
        type=_count(MIN_FRAME, "bytes"),
        metavar="BYTES",
        default=64 << 20,
        help="bytes of partial frames held across all connections; past it the largest is closed (default 64 MiB, at least --max-frame)",
    )
    # --- Claude Code's HTTP hooks (docs/bridges.md)
    p.add_argument(
        "--http-port",
        metavar="PORT|auto|off",
        default=os.environ.get("HOOKD_HTTP_PORT", "auto"),
        help="answer Claude Code's HTTP hooks on 127.0.0.1:PORT; auto (default, or $HOOKD_HTTP_PORT): the port recorded in "
        "the state directory, else a free one; off: not at all",
    )
    p.add_argument(
        "--http-max-body",
        type=_count(MIB, "bytes"),
        metavar="BYTES",
        default=32 << 20,
        help="largest HTTP hook input read (default 32 MiB)",
    )
    p.add_argument(
        "--http-request-timeout",
        type=_seconds(),
        metavar="SECONDS",
        default=10.0,
        help="close an HTTP hook connection whose request head has not arrived by then, or whose body takes 3x as long (default 10; "
        "a connection's first head, before it has shown the secret, gets at most 2)",
    )
    p.set_defaults(run=run, parser=p)


# The byte limits a frame of the largest size must fit in.
_AT_LEAST_A_FRAME = ("--max-pending-bytes", "--max-held-bytes")


def problems(args: argparse.Namespace) -> list[str]:
    """What is wrong across options, or with a path, once each option parsed on its own."""
    from hookd_client import BadSocketPath, verify

    out = []
    for option in _AT_LEAST_A_FRAME:
        value = getattr(args, option.removeprefix("--").replace("-", "_"))
        if value < args.max_frame:
            out.append(
                f"{option} ({value}) must be at least --max-frame ({args.max_frame}): a frame of the largest size could never be read"
            )
    if args.socket is not None:
        try:
            verify.check_shape(args.socket)
            verify.check_kind(args.socket)
        except BadSocketPath as exc:
            out.append(f"--socket: {exc.message}")
    if args.journal is not None and os.path.isdir(args.journal):
        out.append(f"--journal: {args.journal} is a directory; name the journal file, e.g. {os.path.join(args.journal, 'events.jsonl')}")
    if args.log_file is not None and os.path.isdir(args.log_file):
        out.append(f"--log-file: {args.log_file} is a directory; name a file, e.g. {os.path.join(args.log_file, 'hookd.log')}")
    return out


def http_options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The HTTP hook endpoint's options; None when it is off. Raises ValueError for a bad port."""
    from hookd.edge.http.endpoint import Options

    value = str(args.http_port).strip().lower()
    if value in ("off", "no", "none"):
        return None
    if value != "auto" and (not value.isdigit() or int(value) > 65535):
        raise ValueError(f"--http-port must be a port number, auto or off, not {args.http_port!r}")
    wait = args.http_request_timeout
    port = None if value == "auto" else int(value)
    # A connection that has not shown the secret gets a couple of seconds for its first head, never more than any other.
    return Options(port=port, max_body=args.http_max_body, head_timeout=wait, body_timeout=3 * wait, unauth_head_timeout=min(2.0, wait))


def run(args: argparse.Namespace) -> int:
    from hookd.core.settings import Settings
    from hookd.edge import log
    from hookd.edge.service import serve

    wrong = problems(args)
    try:
        http = http_options(args)
    except ValueError as exc:
        wrong.append(str(exc))
    if wrong:
        args.parser.error("; ".join(wrong))
    if args.socket is None:
        from hookd_client import BadSocketPath, verify
        from hookd_client.paths import default_socket_path

        try:
            verify.check_shape(default_socket_path())
        except BadSocketPath as exc:
            args.parser.error(exc.message)
    try:
        log_file = log.open_file(args.log_file) if args.log_file else None
    except OSError as exc:
        args.parser.error(f"--log-file: cannot open {args.log_file}: {exc.strerror or exc}")
    log.configure(args.log_level, args.log_json, log_file)
    if args.ready_fd is not None:
        try:
            os.fstat(args.ready_fd)
        except OSError as exc:
            args.parser.error(f"--ready-fd {args.ready_fd} is not an open file descriptor ({exc.strerror})")
    settings = Settings(max_frame=args.max_frame, hook_timeout=args.hook_timeout, load_user_config=not args.no_user_hooks)
    settings.session_grace = args.session_grace
    settings.max_sessions = args.max_sessions
    settings.approval_timeout = args.approval_timeout
    settings.approval_default = args.approval_default
    settings.max_hooks_per_session = args.max_hooks_per_session
    if args.socket:
        settings.socket = args.socket
    settings.history = args.history
    settings.history_bytes = args.history_bytes
    settings.journal = not args.no_journal
    settings.journal_path = os.path.abspath(args.journal) if args.journal else None
    settings.journal_max_bytes = args.journal_max_bytes
    settings.journal_keep = args.journal_keep
    settings.stats = not args.no_stats
    settings.stats_window = args.stats_window
    edge = settings.edge
    edge.hello_timeout = args.hello_timeout
    edge.frame_timeout = args.frame_timeout
    edge.idle_timeout = args.idle_timeout
    edge.max_connections = args.max_connections
    edge.max_write_buffer = args.max_write_buffer
    edge.max_pending_bytes = args.max_pending_bytes
    edge.max_held_bytes = args.max_held_bytes
    try:
        return serve(settings, drain=args.drain, ready_fd=args.ready_fd, http=http)
    finally:
        if log_file is not None:
            log_file.close()
