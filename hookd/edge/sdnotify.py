"""The service manager's notification protocol (sd_notify), without libsystemd.

systemd hands a Type=notify service the address of a datagram socket in
``$NOTIFY_SOCKET``: a path, or an abstract name written with a leading ``@``.
The service sends newline-separated ``KEY=VALUE`` lines to it: READY=1,
STATUS=..., STOPPING=1, RELOADING=1, WATCHDOG=1. With no ``$NOTIFY_SOCKET``
every call here is a no-op, so `hookd serve` behaves the same by hand.

The variables are removed from the environment as they are read: hook
processes inherit the daemon's environment and must not be able to speak for
the daemon (a hook sending READY=1 or WATCHDOG=1 would lie to the manager).
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import MutableMapping

import structlog

log = structlog.get_logger("hookd.sdnotify")

# A datagram to the manager never waits longer than this: the watchdog ping runs
# on the event loop, and a stuck manager must not stall every client with it.
SEND_TIMEOUT = 1.0


def _address(value: str) -> str | bytes:
    if value.startswith("@"):
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    raise ValueError(f"NOTIFY_SOCKET={value!r} is neither an absolute path nor an abstract name starting with '@'")


class Notifier:
    """Sends state lines to the service manager; does nothing when there is none."""

    def __init__(self, address: str | None) -> None:
        self.address = address or None
        self._target: str | bytes | None = None
        self._sock: socket.socket | None = None
        self._failed = False
        if self.address is None:
            return
        try:
            self._target = _address(self.address)
        except ValueError as exc:
            log.warning("not notifying the service manager", error=str(exc))
            self.address = None
            return
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        self._sock.settimeout(SEND_TIMEOUT)

    @classmethod
    def from_environ(cls, environ: MutableMapping[str, str] | None = None) -> Notifier:
        env = os.environ if environ is None else environ
        return cls(env.pop("NOTIFY_SOCKET", None))

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, *lines: str) -> bool:
        """Send one datagram made of ``lines``; False if there is no manager or it could not be reached."""
        if self._sock is None or self._target is None:
            return False
        try:
            self._sock.sendto("\n".join(lines).encode(), self._target)
        except OSError as exc:
            # Log the first failure only: the watchdog would repeat it every few seconds.
            if not self._failed:
                self._failed = True
                log.warning("cannot notify the service manager", socket=self.address, error=str(exc))
            return False
        self._failed = False
        return True

    def ready(self, status: str) -> bool:
        return self.send("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def status(self, status: str) -> bool:
        return self.send(f"STATUS={status}")

    def reloading(self) -> bool:
        # MONOTONIC_USEC lets a manager that supports Type=notify-reload match this to its reload job.
        return self.send("RELOADING=1", f"MONOTONIC_USEC={time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000}")

    def stopping(self, status: str) -> bool:
        return self.send("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval(environ: MutableMapping[str, str] | None = None) -> float | None:
    """Seconds between WATCHDOG=1 pings (half of ``$WATCHDOG_USEC``), or None when no watchdog is asked for.

    ``$WATCHDOG_PID``, when set, names the process the watchdog is meant for; a
    child that inherited the variables by mistake must not ping.
    """
    env = os.environ if environ is None else environ
    usec = env.pop("WATCHDOG_USEC", None)
    pid = env.pop("WATCHDOG_PID", None)
    if not usec:
        return None
    if pid and pid.strip() != str(os.getpid()):
        return None
    try:
        value = int(usec)
    except ValueError:
        log.warning("ignoring a malformed WATCHDOG_USEC", value=usec)
        return None
    if value <= 0:
        return None
    return value / 2 / 1_000_000


class Watchdog:
    """Pings WATCHDOG=1 from the event loop itself, so a blocked loop stops the pings.

    A thread would keep pinging while the loop that serves clients is stuck,
    which is exactly what the watchdog is there to catch.
    """

    def __init__(self, notifier: Notifier, interval: float) -> None:
        self.notifier = notifier
        self.interval = interval
        self.pings = 0
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._ping()

    def _ping(self) -> None:
        self.notifier.send("WATCHDOG=1")
        self.pings += 1
        self._handle = asyncio.get_running_loop().call_later(self.interval, self._ping)

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


class ReadyFd:
    """Readiness on a file descriptor the starter passed (``hookd serve --ready-fd N``), as s6 does it.

    For a daemon started by hand, a script or a test, with no service manager:
    when the daemon is ready it writes the same lines as the manager's READY=1
    datagram (``READY=1``, ``STATUS=...``, ``MAINPID=...``, one per line) and
    closes the descriptor. A starter reads until the first line: ``READY=1``
    means ready, end of file means the daemon exited before it was ready. The
    descriptor is made non-inheritable at once, so no hook process holds it open.
    """

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        if fd is not None:
            os.set_inheritable(fd, False)

    def ready(self, status: str) -> None:
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            os.write(fd, f"READY=1\nSTATUS={status}\nMAINPID={os.getpid()}\n".encode())
        except OSError as exc:
            log.warning("cannot signal readiness on --ready-fd", fd=fd, error=str(exc))
        finally:
            os.close(fd)
