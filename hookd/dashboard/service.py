"""Run the dashboard: connect to the daemon, serve the page on loopback, print (and open) its URL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import sys
import threading
from typing import TextIO

import structlog

from hookd.dashboard.app import App
from hookd.dashboard.http import HOST, Limits, Server
from hookd.dashboard.link import Link

log = structlog.get_logger("hookd.dashboard")

READY_WAIT = 5.0  # seconds the URL waits for the first connection to the daemon (then it is printed anyway)


async def run(socket: str | None, port: int, name: str, history: int, browser: bool, out: TextIO, limits: Limits | None = None) -> int:
    link = Link(socket, name, history)
    link.start()
    token = secrets.token_urlsafe(32)
    app = App(link)
    server = Server(token, app.handle, limits)
    try:
        bound = await server.start(port)
    except OSError as exc:
        await link.close()
        sys.stderr.write(f"hookd: cannot serve the dashboard on {HOST}:{port}: {exc.strerror or exc}\n")
        return 1
    app.cookie = server.site.set_cookie()
    try:
        async with asyncio.timeout(READY_WAIT):
            await link.ready.wait()
    except TimeoutError:
        sys.stderr.write("hookd: the daemon does not answer yet; the page shows it as disconnected until it does\n")
    url = f"http://{HOST}:{bound}/?token={token}"
    out.write(f"hookd dashboard: {url}\n(open it in a browser on this machine; the token in it is the secret. Ctrl-C stops.)\n")
    out.flush()
    if browser:
        threading.Thread(target=_open, args=(url,), daemon=True).start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        server.close()
        await link.close()
    return 0


def wants_browser() -> bool:
    """Open a browser only where one can show: a graphical session (or macOS)."""
    return sys.platform == "darwin" or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _open(url: str) -> None:
    import webbrowser

    try:
        webbrowser.open(url)
    except Exception as exc:  # no browser is not an error: the URL is printed
        log.info("could not open a browser", error=str(exc))
