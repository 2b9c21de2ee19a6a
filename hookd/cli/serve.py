"""`hookd serve`: run the daemon in the foreground."""

from __future__ import annotations

import argparse
import os


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="run the daemon in the foreground",
        description="Run the hookd daemon in the foreground until SIGTERM or SIGINT. "
        "Logs go to stderr (console on a terminal, JSON lines otherwise). "
        "Started by systemd (see `hookd install-systemd`), it serves the socket it is passed "
        "and reports readiness, status and watchdog pings to the service manager.",
    )
    p.add_argument("--socket", metavar="PATH", help="socket to listen on (default: see `hookd --help`)")
    p.add_argument("--max-frame", type=int, metavar="BYTES", default=1 << 20, help="largest accepted frame (default 1 MiB)")
    p.add_argument("--hook-timeout", type=float, metavar="SECONDS", default=30.0, help="default per-hook timeout (default 30)")
    p.add_argument("--drain", type=float, metavar="SECONDS", default=3.0, help="how long a stop waits for in-flight calls (default 3)")
    p.add_argument(
        "--session-grace",
        type=float,
        metavar="SECONDS",
        default=60.0,
        help="how long a session and its command hooks outlive the connection that attached it (default 60)",
    )
    p.add_argument("--max-sessions", type=int, metavar="N", default=100_000, help="most sessions the daemon holds (default 100000)")
    p.add_argument("--max-hooks-per-session", type=int, metavar="N", default=1000, help="most hooks one session holds (default 1000)")
    p.add_argument("--no-user-hooks", action="store_true", help="do not load the global hook files")
    p.add_argument(
        "--log-level",
        default=os.environ.get("HOOKD_LOG_LEVEL", "info"),
        choices=["debug", "info", "warning", "error"],
        help="log level (default info, or $HOOKD_LOG_LEVEL)",
    )
    p.add_argument("--log-json", action="store_true", default=None, help="log JSON lines even on a terminal")
    # --- event stream
    p.add_argument("--history", type=int, metavar="N", default=10_000, help="events kept in memory for `subscribe --since` (default 10000)")
    p.add_argument("--history-bytes", type=int, metavar="BYTES", default=64 << 20, help="bytes of them kept, at most (default 64 MiB)")
    p.add_argument("--no-journal", action="store_true", help="do not write the event journal")
    p.add_argument("--journal", metavar="PATH", help="event journal file (default $XDG_STATE_HOME/hookd/events.jsonl)")
    p.add_argument("--journal-max-bytes", type=int, metavar="BYTES", default=16 << 20, help="rotate past this size (default 16 MiB)")
    p.add_argument("--journal-keep", type=int, metavar="N", default=5, help="rotated journal files kept (default 5)")
    # --- connection limits (docs/protocol.md, "Limits")
    p.add_argument(
        "--hello-timeout", type=float, metavar="SECONDS", default=10.0, help="close a connection not greeted by then (default 10)"
    )
    p.add_argument(
        "--frame-timeout", type=float, metavar="SECONDS", default=30.0, help="close on a partial frame older than this (default 30)"
    )
    p.add_argument(
        "--idle-timeout", type=float, metavar="SECONDS", default=900.0, help="close a silent connection that holds nothing (default 900)"
    )
    p.add_argument("--max-connections", type=int, metavar="N", default=4096, help="connections served at once (default 4096)")
    p.add_argument(
        "--max-write-buffer", type=int, metavar="BYTES", default=32 << 20, help="unread bytes before a peer is dropped (default 32 MiB)"
    )
    p.add_argument(
        "--max-pending-bytes", type=int, metavar="BYTES", default=16 << 20, help="queued requests before reading stops (default 16 MiB)"
    )
    # --- Claude Code's HTTP hooks (docs/bridges.md)
    p.add_argument(
        "--http-port",
        metavar="PORT|auto|off",
        default=os.environ.get("HOOKD_HTTP_PORT", "auto"),
        help="answer Claude Code's HTTP hooks on 127.0.0.1:PORT; auto (default, or $HOOKD_HTTP_PORT): the port recorded in "
        "the state directory, else a free one; off: not at all",
    )
    p.add_argument("--http-max-body", type=int, metavar="BYTES", default=32 << 20, help="largest HTTP hook input read (default 32 MiB)")
    p.add_argument(
        "--http-request-timeout",
        type=float,
        metavar="SECONDS",
        default=10.0,
        help="close an HTTP hook connection whose request head has not arrived by then, or whose body takes 3x as long (default 10)",
    )
    p.set_defaults(run=run)


def http_options(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    """The HTTP hook endpoint's options; None when it is off. Raises SystemExit for a bad port."""
    from hookd.httphooks.server import Options

    value = str(args.http_port).strip().lower()
    if value in ("off", "no", "none"):
        return None
    if value != "auto" and (not value.isdigit() or int(value) > 65535):
        raise SystemExit(f"hookd serve: --http-port must be a port number, auto or off, not {args.http_port!r}")
    wait = max(0.1, args.http_request_timeout)
    port = None if value == "auto" else int(value)
    return Options(port=port, max_body=max(1 << 20, args.http_max_body), head_timeout=wait, body_timeout=3 * wait)


def run(args: argparse.Namespace) -> int:
    from hookd import log
    from hookd.service import serve
    from hookd.settings import Settings

    log.configure(args.log_level, args.log_json)
    settings = Settings(max_frame=args.max_frame, hook_timeout=args.hook_timeout, load_user_config=not args.no_user_hooks)
    settings.session_grace = args.session_grace
    settings.max_sessions = args.max_sessions
    settings.max_hooks_per_session = args.max_hooks_per_session
    if args.socket:
        settings.socket = args.socket
    settings.history = max(1, args.history)
    settings.history_bytes = max(1 << 20, args.history_bytes)
    settings.journal = not args.no_journal
    settings.journal_path = os.path.abspath(args.journal) if args.journal else None
    settings.journal_max_bytes = max(1024, args.journal_max_bytes)
    settings.journal_keep = max(0, args.journal_keep)
    edge = settings.edge
    edge.hello_timeout = args.hello_timeout
    edge.frame_timeout = args.frame_timeout
    edge.idle_timeout = args.idle_timeout
    edge.max_connections = max(1, args.max_connections)
    edge.max_write_buffer = max(64 << 10, args.max_write_buffer)
    edge.max_pending_bytes = max(args.max_frame, args.max_pending_bytes)
    return serve(settings, drain=args.drain, http=http_options(args))
