"""sd_notify without libsystemd: datagrams to a real notify socket, path and abstract."""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.edge.sdnotify import Notifier, Watchdog, watchdog_interval


def _receiver(kind: str, tmp_path: Path) -> tuple[socket.socket, str]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if kind == "path":
        path = str(tmp_path / "notify.sock")
        sock.bind(path)
        return sock, path
    name = f"hookd-test-{uuid.uuid4().hex}"
    sock.bind(b"\0" + name.encode())
    return sock, "@" + name


@pytest.fixture(params=["path", "abstract"])
def receiver(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock, address = _receiver(request.param, tmp_path)
    sock.settimeout(5)
    yield sock, address
    sock.close()


def _drain(sock: socket.socket) -> list[str]:
    got = []
    sock.setblocking(False)
    try:
        while True:
            got.append(sock.recv(4096).decode())
    except BlockingIOError:
        pass
    finally:
        sock.settimeout(5)
    return got


def test_ready_status_stopping_reach_the_socket(receiver: tuple[socket.socket, str]) -> None:
    sock, address = receiver
    env = {"NOTIFY_SOCKET": address}
    n = Notifier.from_environ(env)
    assert "NOTIFY_SOCKET" not in env, "hook processes must not inherit the manager's socket"
    assert n.enabled
    assert n.ready("0 connections")
    lines = sock.recv(4096).decode().split("\n")
    assert lines[0] == "READY=1"
    assert "STATUS=0 connections" in lines
    assert f"MAINPID={os.getpid()}" in lines
    assert n.stopping("bye")
    assert sock.recv(4096).decode().split("\n") == ["STOPPING=1", "STATUS=bye"]
    assert n.reloading()
    reload = sock.recv(4096).decode().split("\n")
    assert reload[0] == "RELOADING=1" and reload[1].startswith("MONOTONIC_USEC=")
    n.close()


def test_no_notify_socket_is_a_no_op() -> None:
    n = Notifier.from_environ({})
    assert not n.enabled
    assert n.ready("x") is False
    assert n.send("WATCHDOG=1") is False


def test_a_relative_notify_socket_is_refused_not_fatal() -> None:
    n = Notifier("relative/path")
    assert not n.enabled
    assert n.send("READY=1") is False


def test_an_unreachable_manager_does_not_raise(tmp_path: Path) -> None:
    n = Notifier(str(tmp_path / "nobody-listens"))
    assert n.enabled
    assert n.send("READY=1") is False
    assert n.send("WATCHDOG=1") is False


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"WATCHDOG_USEC": "20000000"}, 10.0),
        ({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": str(os.getpid())}, 10.0),
        ({"WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "1"}, None),
        ({"WATCHDOG_USEC": "0"}, None),
        ({"WATCHDOG_USEC": "soon"}, None),
        ({}, None),
    ],
)
def test_watchdog_interval_is_half_of_watchdog_usec(env: dict[str, str], expected: float | None) -> None:
    assert watchdog_interval(env) == expected
    assert "WATCHDOG_USEC" not in env and "WATCHDOG_PID" not in env


def test_watchdog_pings_from_the_loop_and_a_blocked_loop_stops_them(receiver: tuple[socket.socket, str]) -> None:
    sock, address = receiver
    during_block: list[str] = []

    def block_the_loop() -> None:
        _drain(sock)
        time.sleep(0.5)  # the loop is stuck: a loop-driven watchdog cannot ping now
        during_block.extend(_drain(sock))

    async def main() -> None:
        dog = Watchdog(Notifier(address), interval=0.02)
        dog.start()
        await asyncio.sleep(0.2)
        asyncio.get_running_loop().call_soon(block_the_loop)
        await asyncio.sleep(0)
        await asyncio.sleep(0.2)
        dog.stop()

    asyncio.run(main())
    assert during_block == []
    after = _drain(sock)
    assert after and set(after) == {"WATCHDOG=1"}, "pings resume once the loop runs again"
