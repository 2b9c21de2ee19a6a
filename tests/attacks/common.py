"""Black-box attacks on a real daemon: the shared parts (a raw connection, RSS, probes, daemons).

The scenarios live in peers.py, fuzzing.py, holders.py and streams.py, each
returning its figures; they are shared by the tests in this directory (which
assert what must hold) and by bench/attacks.py (which prints the figures for
bench/attacks.md). Every scenario drives a running `hookd serve` over its
socket and signals, as an attacker or a broken client would; none looks
inside the daemon.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from pathlib import Path
from typing import Any

from hookd_client import Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec

from ..conftest import DaemonProcess, make_env

POINT = "tool.approval.pre"
Figures = dict[str, Any]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def daemon_pid(d: DaemonProcess) -> int:
    assert d.proc is not None
    return d.proc.pid


class Raw:
    """A blocking hand-driven connection."""

    def __init__(self, path: str, hello: bool = True, timeout: float = 60) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.codec = reply_codec()
        self.decoder = FrameDecoder(1 << 30)
        self.inbox: list[m.Reply] = []
        if hello:
            self.send(m.Hello(1, m.PROTOCOL_VERSION, "attack", os.getpid()))
            welcome = self.recv()
            assert isinstance(welcome, m.Welcome), welcome

    def send(self, msg: m.Request) -> None:
        self.sock.sendall(self.codec.encode(msg))

    def recv(self) -> m.Reply:
        while not self.inbox:
            data = self.sock.recv(1 << 16)
            assert data, "connection closed"
            self.inbox += [self.codec.decode(b) for b in self.decoder.feed(data)]
        return self.inbox.pop(0)

    def close(self) -> None:
        self.sock.close()


def frame_of(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def probe_latency(path: str) -> float:
    """Seconds for a fresh client to connect and get a status, while the attack goes on."""
    start = time.perf_counter()
    with Client(path, timeout=60) as c:
        c.status()
    return time.perf_counter() - start


def make_env_for(root: Path) -> Any:
    """A sandboxed environment (home, config, state, runtime dirs) under ``root``."""
    return make_env(root)


def fresh_daemon(root: Path, *extra: str) -> DaemonProcess:
    return DaemonProcess(make_env(root), "--no-user-hooks", *extra).start()
