"""What docs/protocol.md says the daemon does at the edges, checked on raw frames.

Written the way a client in another language sees the wire: msgpack maps in
length-prefixed frames, no hookd_client codec.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
from typing import Any

import msgspec
import pytest

HELLO = {"type": "hello", "id": 1, "protocol": 1, "client": "raw", "pid": 999_999_999}
_enc = msgspec.msgpack.Encoder()
_dec = msgspec.msgpack.Decoder()
EOF_ = "EOF"


def frame(obj: dict[str, Any], trailing: bytes = b"") -> bytes:
    body = _enc.encode(obj) + trailing
    return struct.pack(">I", len(body)) + body


class Raw:
    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.buf = b""

    def send(self, *frames: bytes) -> None:
        self.sock.sendall(b"".join(frames))

    def read(self) -> dict[str, Any] | str:
        """The next frame, or EOF_ when the daemon closed the connection."""
        while True:
            if len(self.buf) >= 4:
                (n,) = struct.unpack(">I", self.buf[:4])
                if len(self.buf) >= 4 + n:
                    body, self.buf = self.buf[4 : 4 + n], self.buf[4 + n :]
                    return _dec.decode(body)
            chunk = self.sock.recv(65536)
            if not chunk:
                return EOF_
            self.buf += chunk

    def until(self, kind: str) -> dict[str, Any]:
        while True:
            got = self.read()
            assert got != EOF_, f"connection closed before a {kind!r} frame"
            assert isinstance(got, dict)
            if got.get("type") == kind:
                return got

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def daemon(module_daemon):  # type: ignore[no-untyped-def]
    """The module's one daemon: each test opens its own raw connections (the one that stops a daemon
    starts its own)."""
    return module_daemon


def test_a_body_with_trailing_bytes_is_answered_with_its_id(daemon) -> None:  # type: ignore[no-untyped-def]
    c = Raw(daemon.socket)
    c.send(frame(HELLO), frame({"type": "status", "id": 7}, b"\x00\x01"))
    assert c.read()["type"] == "welcome"  # type: ignore[index]
    reply = c.read()
    assert isinstance(reply, dict) and reply["type"] == "error" and reply["code"] == "bad_request" and reply["id"] == 7
    c.send(frame({"type": "status", "id": 8}))
    assert c.until("status")["id"] == 8  # the connection stays usable
    c.close()


def test_version_mismatch_answers_the_frames_behind_it_then_closes(daemon) -> None:  # type: ignore[no-untyped-def]
    c = Raw(daemon.socket)
    c.send(frame({**HELLO, "protocol": 99}), frame({"type": "status", "id": 2}), frame({"type": "status", "id": 3}))
    replies = [c.read(), c.read(), c.read(), c.read()]
    assert [(r["code"], r["id"]) for r in replies[:3] if isinstance(r, dict)] == [
        ("version_mismatch", 1),
        ("hello_required", 2),
        ("hello_required", 3),
    ]
    assert replies[3] == EOF_
    c.close()


def test_id_zero_is_answered_with_id_zero_and_hello_pid_is_not_used(daemon) -> None:  # type: ignore[no-untyped-def]
    c = Raw(daemon.socket)
    hook = {"name": "x", "point": "custom.p", "type": "observer", "command": "true"}
    c.send(frame(HELLO), frame({"type": "status", "id": 0}), frame({"type": "register", "id": 2, "hook": hook}))
    c.send(frame({"type": "list_hooks", "id": 3}))
    assert c.until("status")["id"] == 0
    listed = c.until("hook_list")
    assert [h["source"] for h in listed["hooks"]] == [f"client:{os.getpid()}"]  # the real pid, not hello's
    c.close()


def test_an_invoke_has_no_id_and_no_empty_payload(daemon) -> None:  # type: ignore[no-untyped-def]
    server = Raw(daemon.socket)
    spec = {"cb": 1, "name": "cb", "point": "custom.q", "type": "observer"}
    server.send(frame(HELLO), frame({"type": "attach_hooks", "id": 2, "session": "s9", "hooks": [{"kind": "callback", "spec": spec}]}))
    server.until("attached")
    caller = Raw(daemon.socket)
    caller.send(frame(HELLO), frame({"type": "emit", "id": 2, "point": "custom.q", "session": "s9"}))
    caller.until("accepted")
    invoke = server.until("invoke")
    assert "id" not in invoke and "payload" not in invoke
    assert invoke["session"] == "s9" and invoke["cb"] == 1 and invoke["kind"] == "observer"
    server.close()
    caller.close()


def test_unknown_keys_are_ignored_except_in_hook_specs(daemon) -> None:  # type: ignore[no-untyped-def]
    c = Raw(daemon.socket)
    spec = {"cb": 1, "name": "c", "point": "custom.q", "type": "observer", "bogus": 1}
    c.send(frame(HELLO), frame({"type": "status", "id": 2, "bogus": 1}))
    assert c.until("status")["id"] == 2
    c.send(frame({"type": "attach_hooks", "id": 3, "session": "s8", "hooks": [{"kind": "callback", "spec": spec}]}))
    error = c.until("error")
    assert error["id"] == 3 and error["code"] == "bad_request" and "bogus" in error["message"]
    c.close()


def test_a_stream_ends_with_the_close_and_no_end_frame(daemon_factory) -> None:  # type: ignore[no-untyped-def]
    daemon = daemon_factory()  # stopped by this test: a daemon of its own
    sub = Raw(daemon.socket)
    sub.send(frame(HELLO), frame({"type": "subscribe", "id": 2, "points": ["hookd.daemon.*"]}))
    sub.until("subscribed")
    sub.until("live")
    daemon.signal(signal.SIGTERM)
    frames = []
    while (got := sub.read()) != EOF_:
        frames.append(got)
    # At most the stopping event (when it was written before the close), never an error or an end frame.
    assert [(f["type"], f["point"], "id" in f) for f in frames] in ([], [("event", "hookd.daemon.stopping", False)])
    assert daemon.proc.wait(30) == 0
    sub.close()
