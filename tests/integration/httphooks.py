"""Test helpers: find a real daemon's HTTP hook endpoint and talk to it over a real socket."""

from __future__ import annotations

import json
import socket
import time
from dataclasses import dataclass
from typing import Any

from ..conftest import DaemonProcess


@dataclass
class Endpoint:
    port: int
    token: str

    def raw(self, data: bytes, timeout: float = 30.0) -> bytes:
        """Send ``data`` on a fresh connection; everything the daemon sends back until it closes."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            chunks = []
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
            return b"".join(chunks)

    def request(
        self,
        body: bytes,
        event: str = "PreToolUse",
        headers: dict[str, str] | None = None,
        token: str | None = None,
        agent: str = "claude-code",
    ) -> bytes:
        fields = {"Host": f"127.0.0.1:{self.port}", "Authorization": f"Bearer {self.token if token is None else token}"}
        fields.update({"Content-Type": "application/json", "Content-Length": str(len(body)), "Connection": "close"})
        fields.update(headers or {})
        head = f"POST /{agent}/{event} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
        return self.raw(head.encode() + body)

    def post(
        self, hook_input: dict[str, Any], headers: dict[str, str] | None = None, agent: str = "claude-code", event: str | None = None
    ) -> tuple[int, bytes]:
        event = event or str(hook_input.get("hook_event_name", "PreToolUse"))
        return status_and_body(self.request(json.dumps(hook_input).encode(), event, headers, agent=agent))


def status_and_body(response: bytes) -> tuple[int, bytes]:
    head, _, body = response.partition(b"\r\n\r\n")
    line = head.split(b"\r\n", 1)[0]
    return int(line.split()[1]), body


def endpoint(daemon: DaemonProcess, timeout: float = 15.0) -> Endpoint:
    """The endpoint once this daemon serves it (it records its pid with the port)."""
    state = daemon.env.state / "hookd"
    assert daemon.proc is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = json.loads((state / "http.json").read_text())
        except (OSError, ValueError):
            data = {}
        if data.get("pid") == daemon.proc.pid:
            return Endpoint(int(data["port"]), (state / "http-token").read_text().strip())
        time.sleep(0.02)
    raise TimeoutError(f"the daemon did not serve HTTP hooks within {timeout} s:\n{daemon.log()[-3000:]}")
