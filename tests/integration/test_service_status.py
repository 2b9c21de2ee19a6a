"""The service in-process: STATUS= follows the daemon's counters while it runs."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
from pathlib import Path

import pytest
from hookd_client import Client

from hookd.core.settings import Settings
from hookd.edge.sdnotify import Notifier
from hookd.edge.server import bind_socket
from hookd.edge.service import Service

from ..conftest import make_env


def _datagram_with(sock: socket.socket, prefix: str) -> list[str]:
    while True:
        lines = sock.recv(4096).decode().split("\n")
        if any(x.startswith(prefix) for x in lines):
            return lines


def test_status_is_refreshed_with_connections_sessions_and_events(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The daemon runs in this process: its journal, trust and toggle files follow this process's
    # environment, which must point into the test's own temporary HOME, never the user's.
    sandbox = make_env(tmp_path / "sandbox")
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        monkeypatch.setenv(name, sandbox.env[name])
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(tmp_path / "notify.sock"))
    receiver.settimeout(15)
    settings = Settings(socket=str(tmp_path / "hookd.sock"), load_user_config=False)
    service = Service(settings, drain=1.0, notifier=Notifier(str(tmp_path / "notify.sock")), status_every=0.05)
    loops: list[asyncio.AbstractEventLoop] = []
    seen: dict[str, list[str]] = {}

    def agent() -> None:
        seen["ready"] = _datagram_with(receiver, "READY=1")
        with Client(settings.socket, timeout=15) as c:
            c.attach_session("s1")
            c.decide("tool.approval.pre", {}, session="s1")
            c.emit("tool.execute.after", {}, session="s1")
            seen["busy"] = _datagram_with(receiver, "STATUS=1 connections")
        seen["idle"] = _datagram_with(receiver, "STATUS=0 connections")
        loops[0].call_soon_threadsafe(service._on_signal, signal.SIGTERM)
        seen["stopping"] = _datagram_with(receiver, "STOPPING=1")

    async def main() -> int:
        loops.append(asyncio.get_running_loop())
        return await service.run(bind_socket(settings.socket))

    thread = threading.Thread(target=agent, daemon=True)
    thread.start()
    try:
        assert asyncio.run(main()) == 0
        thread.join(15)
    finally:
        receiver.close()
    assert "STATUS=0 connections, 0 sessions, 0 events served" in seen["ready"]
    assert seen["busy"] == ["STATUS=1 connections, 1 sessions, 2 events served"]
    assert seen["idle"] == ["STATUS=0 connections, 1 sessions, 2 events served"]
    assert seen["stopping"][0] == "STOPPING=1"
    assert not os.path.exists(settings.socket)
    journal = sandbox.state / "hookd" / "events.jsonl"
    assert b"hookd.daemon.stopped" in journal.read_bytes()
