"""`hookd dashboard`: a live web page of what hooks do, with approvals, on 127.0.0.1."""

from __future__ import annotations

import argparse
import os
import sys

from hookd.cli.common import add_socket


def add(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "dashboard",
        help="a live web page: sessions, events, each decide's hooks and timings, stats, approvals",
        description="Serve a local web page (on 127.0.0.1 only) that shows the sessions and their agents, the live "
        "event stream with filters, each decide's chain with per-hook timings, stats, shadow-guard results, and the "
        "pending approvals with allow/deny buttons. It prints the page's URL, which carries a secret token (as "
        "Jupyter's does), and opens it in a browser when there is a display. docs/dashboard.md.",
    )
    p.add_argument("--port", type=int, default=0, metavar="PORT", help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--name", metavar="NAME", help="the approver name answers from the page carry (default: your user name)")
    p.add_argument("--history", type=int, default=500, metavar="N", help="past events shown when the page opens (default 500)")
    browser = p.add_mutually_exclusive_group()
    browser.add_argument("--browser", dest="browser", action="store_true", default=None, help="open a browser (default: with a display)")
    browser.add_argument("--no-browser", dest="browser", action="store_false", help="only print the URL")
    add_socket(p)
    p.set_defaults(run=run, parser=p)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from hookd.dashboard import service, who
    from hookd.edge import log

    if not 0 <= args.port <= 65535:
        args.parser.error(f"--port must be 0 to 65535, not {args.port}")
    if args.history < 1:
        args.parser.error(f"--history must be at least 1, not {args.history}")
    log.configure(os.environ.get("HOOKD_LOG_LEVEL", "warning"), None, None)
    browser = service.wants_browser() if args.browser is None else args.browser
    name = args.name or who.login_name()
    return asyncio.run(service.run(args.socket, args.port, name, args.history, browser, sys.stdout))
