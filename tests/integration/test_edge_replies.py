"""Exactly one reply per request at the socket edge, whatever the request or its answer holds."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import msgspec
import pytest
from hookd_client import Client
from hookd_client import messages as m
from hookd_client.errors import HookdError
from hookd_client.framing import FrameDecoder, reply_codec

from ..conftest import write_script

POINT = "tool.approval.pre"


@pytest.fixture
def daemon(module_daemon):  # type: ignore[no-untyped-def]
    """The module's one daemon: each test opens its own connections and names its own session."""
    return module_daemon


class Raw:
    """A hand-driven connection that can send any bytes and reads every frame."""

    def __init__(self, path: str, hello: bool = True) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(30)
        self.sock.connect(path)
        self.codec = reply_codec()
        self.decoder = FrameDecoder(1 << 30)
        self.inbox: list[m.Reply] = []
        if hello:
            self.send(m.Hello(1, m.PROTOCOL_VERSION, "raw", os.getpid()))
            assert isinstance(self.recv(), m.Welcome)

    def send(self, msg: m.Request) -> None:
        self.sock.sendall(self.codec.encode(msg))

    def recv(self) -> m.Reply:
        while not self.inbox:
            data = self.sock.recv(65536)
            assert data, "connection closed"
            self.inbox += [self.codec.decode(b) for b in self.decoder.feed(data)]
        return self.inbox.pop(0)

    def recv_until_closed(self) -> list[m.Reply]:
        """Every frame until the daemon closes the connection."""
        out = list(self.inbox)
        self.inbox.clear()
        while True:
            data = self.sock.recv(65536)
            if not data:
                return out
            out += [self.codec.decode(b) for b in self.decoder.feed(data)]

    def close(self) -> None:
        self.sock.close()


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def deep_decide(rid: int, levels: int) -> bytes:
    """A decide whose payload is nested ``levels`` deep (built by hand: no encoder writes it)."""
    head = msgspec.msgpack.encode({"type": "decide", "id": rid, "point": POINT})
    return bytes([0x80 | 4]) + head[1:] + msgspec.msgpack.encode("payload") + b"\x81\xa1a" + b"\x91" * levels + b"\x90"


def test_a_hook_answer_msgpack_cannot_carry_still_gets_one_reply(daemon, tmp_path: Path):  # type: ignore[no-untyped-def]
    hook = write_script(
        tmp_path / "huge.py",
        """
        import json, sys
        sys.stdin.read()
        print('{"decision": "allow", "modifiedInput": {"n": 123456789012345678901234567890}}')
        """,
    )
    spec = {"name": "huge", "point": POINT, "type": "decision", "command": str(hook)}
    with Client(daemon.socket, timeout=60) as c:
        c.attach_session("s1", [spec])
        try:
            outcome = c.decide(POINT, {"toolName": "x"}, session="s1")
        except HookdError as exc:
            # Degraded at the edge: one error reply naming what could not be encoded.
            assert "64 bits" in exc.message, exc.message
        else:
            # Or degraded where the answer came in: the hook's error says why.
            assert outcome.modified_input is None
            assert any("64 bits" in e.message for e in outcome.errors), outcome
        # The connection still serves.
        assert c.status().pid > 0


def test_a_deeply_nested_frame_is_an_error_for_that_frame_only(daemon):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    codec = reply_codec()
    batch = codec.encode(m.StatusRequest(2)) + frame(deep_decide(3, 1000)) + codec.encode(m.StatusRequest(4))
    raw.sock.sendall(batch)
    first, second, third = raw.recv(), raw.recv(), raw.recv()
    assert isinstance(first, m.Status) and first.id == 2
    assert isinstance(second, m.Error) and second.id == 3 and second.code == m.ErrorCode.BAD_REQUEST, second
    assert "nested too deeply" in second.message
    assert isinstance(third, m.Status) and third.id == 4
    raw.send(m.StatusRequest(5))
    assert raw.recv().id == 5  # type: ignore[attr-defined]
    raw.close()


def test_requests_before_an_oversized_frame_are_answered_before_the_close(daemon):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    codec = reply_codec()
    batch = codec.encode(m.StatusRequest(2)) + codec.encode(m.Explain(3, POINT)) + struct.pack(">I", 1 << 30)
    raw.sock.sendall(batch)
    replies = raw.recv_until_closed()
    assert [type(r).__name__ for r in replies] == ["Status", "Chain", "Error"], replies
    assert [r.id for r in replies] == [2, 3, 0]  # type: ignore[attr-defined]
    assert replies[2].code == m.ErrorCode.FRAME_TOO_LARGE  # type: ignore[attr-defined]
    raw.close()


def test_garbage_after_hello_never_loses_a_neighbour_reply(daemon):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    codec = reply_codec()
    bad = [b"\xc1", b"\x91", msgspec.msgpack.encode({"type": "decide", "id": 9}), deep_decide(10, 5000)]
    batch = b"".join(frame(b) + codec.encode(m.StatusRequest(100 + i)) for i, b in enumerate(bad))
    raw.sock.sendall(batch)
    replies = [raw.recv() for _ in range(2 * len(bad))]
    assert [r.id for r in replies if isinstance(r, m.Status)] == [100, 101, 102, 103]  # type: ignore[attr-defined]
    errors = [r for r in replies if isinstance(r, m.Error)]
    assert [e.id for e in errors] == [0, 0, 9, 10] and {e.code for e in errors} == {m.ErrorCode.BAD_REQUEST}
    raw.close()


@pytest.mark.parametrize("levels", [200, 900])
def test_nesting_the_decoder_follows_is_answered_too(daemon, levels: int):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    raw.sock.sendall(frame(deep_decide(3, levels)))
    reply = raw.recv()
    assert reply.id == 3  # type: ignore[attr-defined]
    raw.close()
