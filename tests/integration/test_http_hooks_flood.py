"""A flood of connections without the secret cannot crowd the user's hook calls out of the HTTP
endpoint. Real daemon, real loopback sockets, a real guard.

The flood keeps every connection slot taken with half-sent request heads, opening a new connection
each time one of its own is closed. Meanwhile real hook calls (with the secret), each on a new
connection as the shim makes them, and a run of calls on one kept-alive connection as Claude Code
makes them, must all be answered by the guard.
"""

from __future__ import annotations

import http.client
import json
import selectors
import socket
import threading
import time
from pathlib import Path

from ..conftest import Env
from .httphooks import Endpoint, endpoint, status_and_body
from .test_http_hooks import PRE, guarded, seen_rows

SLOTS = 256  # the endpoint's connections at once
FLOOD = 320  # more than the slots, so that the endpoint is always full
HANG_GUARD = 120.0  # seconds; only so a bug cannot hang the suite


class Flood(threading.Thread):
    """Keeps FLOOD half-open connections without the secret, reopening each one the daemon closes."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.head = f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n".encode()
        self.stop = threading.Event()
        self.opened = 0
        self.closed_by_daemon = 0
        self.error: BaseException | None = None

    def _open(self, sel: selectors.BaseSelector) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        except OSError:  # the listener's queue is full for a moment: tried again on the next round
            return
        try:
            sock.sendall(self.head)
        except OSError:  # closed before it could even send: reopened at once
            sock.close()
            self.closed_by_daemon += 1
            return
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)
        self.opened += 1

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        try:
            for _ in range(FLOOD):
                self._open(sel)
            while not self.stop.is_set():
                for key, _ in sel.select(0.05):
                    sock: socket.socket = key.fileobj  # type: ignore[assignment]
                    try:
                        data = sock.recv(65536)
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(sock)
                        sock.close()
                        self.closed_by_daemon += 1
                        self._open(sel)
                while len(sel.get_map()) < FLOOD and not self.stop.is_set():
                    self._open(sel)
        except BaseException as exc:
            self.error = exc
        finally:
            for key in list(sel.get_map().values()):
                key.fileobj.close()  # type: ignore[union-attr]
            sel.close()


def call(ep: Endpoint, command: str) -> tuple[int, bytes]:
    response = ep.request(json.dumps({**PRE, "tool_input": {"command": command}}).encode())
    assert response, f"the call {command!r} was closed unanswered: its tool would run unguarded"
    return status_and_body(response)


def test_a_flood_without_the_secret_never_crowds_out_hook_calls(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    # A connection that authenticated before the flood, kept alive through it (as Claude Code keeps its own).
    kept = http.client.HTTPConnection("127.0.0.1", ep.port, timeout=60)
    headers = {"Host": f"127.0.0.1:{ep.port}", "Authorization": f"Bearer {ep.token}", "Content-Type": "application/json"}

    def kept_call(command: str) -> tuple[int, bytes]:
        kept.request("POST", "/claude-code/PreToolUse", json.dumps({**PRE, "tool_input": {"command": command}}), headers)
        response = kept.getresponse()
        return response.status, response.read()

    assert kept_call("ls")[0] == 200

    flood = Flood(ep.port)
    flood.start()
    try:
        # Full: the flood has more connections open than there are slots, and the daemon has closed some of them.
        deadline = time.monotonic() + HANG_GUARD
        while not (flood.opened > SLOTS and flood.closed_by_daemon > 0):
            assert flood.error is None, flood.error
            assert time.monotonic() < deadline, f"the flood never filled the endpoint ({flood.opened} opened)"
            time.sleep(0.01)
        for i in range(30):
            status, body = call(ep, f"rm -rf build{i}")  # a new connection per call, as the shim makes them
            assert status == 200, (i, status, body)
            assert json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny", body
            status, body = kept_call(f"rm -rf kept{i}")
            assert status == 200 and json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny", (i, body)
        assert flood.error is None, flood.error
    finally:
        flood.stop.set()
        flood.join(HANG_GUARD)
        kept.close()
    guarded_calls = [r["payload"]["args"]["command"] for r in seen_rows(seen)]
    assert sum(c.startswith("rm -rf build") for c in guarded_calls) == 30
    assert sum(c.startswith("rm -rf kept") for c in guarded_calls) == 30


def test_a_connection_without_the_secret_gets_a_short_deadline_and_one_that_showed_it_keeps_its_own(env: Env, daemon_factory) -> None:
    # Heads may take 600 s: only a connection that has not shown the secret is held to less.
    ep = endpoint(daemon_factory("--http-request-timeout", "600"))
    kept = socket.create_connection(("127.0.0.1", ep.port), timeout=60)
    body = json.dumps({**PRE, "tool_input": {"command": "ls"}}).encode()
    head = (
        f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    kept.sendall(head.encode() + body)
    assert kept.recv(65536).startswith(b"HTTP/1.1 200 ")  # authenticated, and kept alive (idle from here on)
    stranger = socket.create_connection(("127.0.0.1", ep.port), timeout=60)
    stranger.sendall(f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\n".encode())
    got = b""
    while chunk := stranger.recv(65536):  # the daemon answers 408 and closes; a hang here is a failure
        got += chunk
    assert got.startswith(b"HTTP/1.1 408 "), got
    # The authenticated connection has been idle longer than the stranger lived, and is still served.
    kept.sendall(head.encode() + body)
    assert kept.recv(65536).startswith(b"HTTP/1.1 200 ")
    kept.close()
    stranger.close()
