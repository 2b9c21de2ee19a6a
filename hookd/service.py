"""`hookd serve`: start the daemon, serve until a signal, stop cleanly.

On SIGTERM/SIGINT the daemon stops accepting, lets in-flight calls finish for
up to ``drain`` seconds, kills every hook process group still running and
exits 0. A second signal exits at once.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import structlog

from .daemon import Daemon
from .server import AlreadyRunning, Listener, bind_socket, start_server
from .settings import Settings

log = structlog.get_logger("hookd.service")


def install_event_loop() -> str:
    """Use uvloop when it is importable; say which loop runs."""
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


class Service:
    def __init__(self, settings: Settings, drain: float = 3.0) -> None:
        self.settings = settings
        self.drain = drain
        self.daemon = Daemon(settings)
        self._stop = asyncio.Event()
        self._signals = 0

    def _on_signal(self, signum: int) -> None:
        self._signals += 1
        if self._signals > 1:
            log.warning("second signal: exiting now", signal=signal.Signals(signum).name)
            self.daemon.commands.groups.kill_all()
            os._exit(1)
        log.info("stopping", signal=signal.Signals(signum).name)
        self._stop.set()

    def _on_hup(self) -> None:
        log.info("SIGHUP: reloading user hooks")
        self.daemon.load_global()

    async def run(self, listener: Listener) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._on_signal, sig)
        loop.add_signal_handler(signal.SIGHUP, self._on_hup)
        self.daemon.start()
        server = await start_server(self.daemon, listener.sock)
        log.info("hookd listening", socket=listener.path, pid=os.getpid())
        try:
            await self._stop.wait()
        finally:
            self.daemon.closing = True
            server.close()
            listener.remove()
            await self._drain()
            self.daemon.commands.groups.kill_all()
        log.info("hookd stopped")
        return 0

    async def _drain(self) -> None:
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        if tasks:
            __, pending = await asyncio.wait(tasks, timeout=self.drain)
            for task in pending:
                task.cancel()


def serve(settings: Settings, drain: float = 3.0) -> int:
    loop_name = install_event_loop()
    try:
        listener = bind_socket(settings.socket)
    except AlreadyRunning as exc:
        log.error(str(exc))
        return 1
    except OSError as exc:
        log.error("cannot listen", socket=settings.socket, error=str(exc))
        return 1
    log.debug("event loop", loop=loop_name)
    service = Service(settings, drain)
    try:
        return asyncio.run(service.run(listener))
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stderr.flush()
