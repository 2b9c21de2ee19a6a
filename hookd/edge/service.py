"""`hookd serve`: start the daemon, serve until a signal, stop cleanly.

The daemon listens on the socket the service manager passed (socket
activation, see activation.py) or binds its own. It tells the manager when it
is ready, how it is doing and when it stops (sdnotify.py), and pings the
watchdog from the event loop.

On SIGTERM/SIGINT the daemon stops accepting, lets in-flight calls finish for
up to ``drain`` seconds, kills every hook process group still running, answers
every request still open with ``shutting_down`` (exactly one reply each), and
exits 0. A second signal exits at once. SIGHUP reloads the user hook files.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Awaitable, Callable

import structlog

from hookd.config.statefiles import state_home
from hookd.core.limits import raise_fd_limit
from hookd.core.settings import Settings
from hookd.daemon.daemon import Daemon
from hookd.edge.activation import ActivationError, inherited_listener
from hookd.edge.http.endpoint import Endpoint
from hookd.edge.http.endpoint import Options as HttpOptions
from hookd.edge.http.server import start as start_http
from hookd.edge.sdnotify import Notifier, ReadyFd, Watchdog, watchdog_interval
from hookd.edge.server import AlreadyRunning, Hub, Listener, bind_socket, start_server, stop_listening
from hookd.edge.statelock import StateLock, StateLocked, acquire

log = structlog.get_logger("hookd.service")

# How often STATUS= is refreshed for `systemctl --user status hookd` (only when it changed).
STATUS_EVERY = 5.0
# After the drain: how long cancelled calls get to unwind and killed hooks to be reaped.
UNWIND = 1.0
# Held back from the start until the loop handles them: a client can connect as soon as the socket
# is bound, and a SIGTERM in that window must stop hookd cleanly, not kill it by default action.
SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}


def install_event_loop() -> str:
    """Use uvloop when it is importable; say which loop runs."""
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


class Service:
    def __init__(
        self,
        settings: Settings,
        drain: float = 3.0,
        notifier: Notifier | None = None,
        watchdog: float | None = None,
        status_every: float = STATUS_EVERY,
        ready_fd: ReadyFd | None = None,
        http: HttpOptions | None = None,
    ) -> None:
        self.settings = settings
        self.drain = drain
        self.status_every = status_every
        self.notifier = notifier or Notifier(None)
        self.ready_fd = ready_fd or ReadyFd(None)
        self.watchdog_interval = watchdog
        self.daemon = Daemon(settings)
        self.hub = Hub(self.daemon)
        self._stop = asyncio.Event()
        self._signals = 0
        self._status = ""
        self._status_timer: asyncio.TimerHandle | None = None
        self.http_options = http
        self.http: Endpoint | None = None

    def status_line(self) -> str:
        d = self.daemon
        c = d.engine.counters
        return f"{d.connections} connections, {len(d.registry.sessions)} sessions, {c.emits + c.decides} events served"

    def _report_status(self) -> None:
        line = self.status_line()
        if line != self._status:
            self._status = line
            self.notifier.status(line)
        self._status_timer = asyncio.get_running_loop().call_later(self.status_every, self._report_status)

    def _on_signal(self, signum: int) -> None:
        self._signals += 1
        if self._signals > 1:
            log.warning("second signal: exiting now", signal=signal.Signals(signum).name)
            self.daemon.commands.groups.kill_all()
            os._exit(1)
        log.info("stopping", signal=signal.Signals(signum).name, drain=self.drain)
        self._stop.set()

    def _on_hup(self) -> None:
        log.info("SIGHUP: reloading user hooks")
        self.notifier.reloading()
        # READY=1 again only once the files are read: `systemctl reload` returns when the new
        # hooks are in force, not before.
        done = self.daemon.reload_all()
        done.add_done_callback(lambda _task: self.notifier.send("READY=1", f"STATUS={self.status_line()}"))

    async def run(self, listener: Listener) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self._on_signal, sig)
        loop.add_signal_handler(signal.SIGHUP, self._on_hup)
        # Unblocked before any hook process is spawned: children inherit the signal mask.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
        self.daemon.start()
        server = await start_server(self.daemon, listener.sock, self.hub)
        log.info("hookd listening", socket=listener.path, pid=os.getpid(), activated=not listener.owned)
        if self.http_options is not None:
            try:
                self.http = await start_http(self.daemon, self.http_options, state_home())
            except OSError as exc:
                log.error("cannot serve HTTP hooks; Claude Code's HTTP hooks fail until this is fixed", error=str(exc))
        # Ready means: the global hook files are loaded (each in force, or rejected with its
        # previous accepted version kept), the socket is accepted on and HTTP hooks are served.
        # Plugin installs may still run; `hookd plugins` shows them.
        self._status = self.status_line()
        self.notifier.ready(self._status)
        self.ready_fd.ready(self._status)
        watchdog = None
        if self.notifier.enabled:
            self._status_timer = loop.call_later(self.status_every, self._report_status)
            if self.watchdog_interval:
                watchdog = Watchdog(self.notifier, self.watchdog_interval)
                watchdog.start()
        try:
            await self._stop.wait()
        finally:
            self.notifier.stopping(f"stopping: draining {self.status_line()}")
            # Each step before the wind-up stands alone: one that fails is logged and the stop goes
            # on, so that every request still open is answered whatever went wrong on the way.
            _step("beginning the shutdown", self.daemon.begin_shutdown)
            if self.http is not None:
                _step("closing the HTTP hook endpoint", self.http.close)
            await _async_step("taking the connections queued at the stop", stop_listening(server, listener, self.daemon, self.hub))
            await _async_step("draining", self._drain())
            # Whatever the drain could not finish is answered now, before the connections close.
            await self.hub.wind_up(UNWIND)
            if self._status_timer is not None:
                self._status_timer.cancel()
            if watchdog is not None:
                watchdog.stop()
            self.daemon.stop()
        log.info("hookd stopped")
        return 0

    async def _drain(self) -> None:
        """Wait up to ``drain`` seconds for in-flight work, then cancel it and kill every hook still running."""
        current = asyncio.current_task()
        tasks = {t for t in asyncio.all_tasks() if t is not current}
        if tasks:
            __, pending = await asyncio.wait(tasks, timeout=self.drain)
            if pending:
                log.warning("drain time is up: cancelling unfinished work", tasks=len(pending))
                for task in pending:
                    task.cancel()
                # Cancelled hook calls schedule the kill of their process groups as they unwind.
                await asyncio.wait(pending, timeout=UNWIND)
        # Warm workers get EOF and a grace period before the kill below.
        await self.daemon.persistent.stop_all()
        groups = self.daemon.commands.groups
        groups.kill_all()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(UNWIND):
                await groups.settle()


def _step(what: str, step: Callable[[], object]) -> None:
    try:
        step()
    except Exception:
        log.exception("a step of the stop failed; stopping anyway", step=what)


async def _async_step(what: str, step: Awaitable[object]) -> None:
    try:
        await step
    except Exception:
        log.exception("a step of the stop failed; stopping anyway", step=what)


def _listener(settings: Settings) -> Listener | None:
    """The inherited socket, or a freshly bound one; None (after logging why) when neither is possible."""
    try:
        listener = inherited_listener()
    except ActivationError as exc:
        log.error("socket activation failed", error=str(exc))
        return None
    if listener is not None:
        if settings.socket != listener.path:
            log.info("serving the socket passed by the service manager", socket=listener.path, configured=settings.socket)
        settings.socket = listener.path
        return listener
    try:
        return bind_socket(settings.socket)
    except AlreadyRunning as exc:
        log.error(str(exc))
    except OSError as exc:
        log.error("cannot listen", socket=settings.socket, error=str(exc))
    return None


# The event history keeps thousands of recent payloads alive, so at the default
# thresholds (700, 10, 10) the collector keeps rescanning them: ~2 of the ~5 us a
# request costs under load. Young collections every 50,000 allocations
# instead; freezing what start-up created keeps it out of full collections.
GC_THRESHOLDS = (50_000, 20, 100)


def tune_gc() -> None:
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


# `hookd serve` exits with this when another daemon holds its state directory, so a service
# manager or a script can tell "already running elsewhere" from a failure.
EXIT_STATE_LOCKED = 3


def _lock_state(settings: Settings) -> list[StateLock] | int:
    """Hold the state directory (and the journal's, when elsewhere) for this daemon's life."""
    directories = [state_home()]
    if settings.journal and settings.journal_path:
        directories.append(os.path.dirname(os.path.abspath(settings.journal_path)))
    held: list[StateLock] = []
    for directory in dict.fromkeys(os.path.realpath(d) for d in directories):
        try:
            held.append(acquire(directory))
        except StateLocked as exc:
            log.error(str(exc), pid=exc.pid)
            return EXIT_STATE_LOCKED
        except OSError as exc:
            log.error("cannot lock the state directory", directory=directory, error=str(exc))
            return 1
    return held


def serve(settings: Settings, drain: float = 3.0, ready_fd: int | None = None, http: HttpOptions | None = None) -> int:
    # Before anything can spawn a process: the descriptor must not leak into hooks.
    ready = ReadyFd(ready_fd)
    loop_name = install_event_loop()
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    # Read (and remove) the manager's variables before anything copies the environment for hook processes.
    notifier = Notifier.from_environ()
    watchdog = watchdog_interval()
    listener = _listener(settings)
    if listener is None:
        notifier.send("STATUS=failed to start; see the log")
        return 1
    # After the socket, so that a second daemon on the same socket is told that first; the
    # lock is released by the kernel when the process ends, however it ends.
    locks = _lock_state(settings)
    if isinstance(locks, int):
        listener.remove()
        notifier.send("STATUS=another daemon holds the state directory; see the log")
        return locks
    log.debug("event loop", loop=loop_name, open_files=raise_fd_limit())
    service = Service(settings, drain, notifier, watchdog, ready_fd=ready, http=http)
    try:
        tune_gc()
        return asyncio.run(service.run(listener))
    except KeyboardInterrupt:
        return 130
    finally:
        notifier.close()
        sys.stderr.flush()
