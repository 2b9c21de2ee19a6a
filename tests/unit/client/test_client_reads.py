"""The synchronous client reads its replies however the bytes arrive.

A real socket pair stands in for the daemon: whatever way the replies are cut
into reads (one whole frame, a frame split anywhere, several frames at once,
another request's reply first), ``decide`` returns the reply to its own request,
and a reply that is not valid msgpack ends the connection with an error naming it.
"""

from __future__ import annotations

import fcntl
import socket
import struct
import termios
import threading
import time

import msgspec
import pytest
from hookd_client import Client
from hookd_client.errors import ConnectionLost
from hookd_client.framing import HEADER
from hookd_client.messages import Outcome
from hypothesis import given, settings
from hypothesis import strategies as st


def _frame(msg: object) -> bytes:
    body = msgspec.msgpack.encode(msg)
    return HEADER.pack(len(body)) + body


def _connected(sock: socket.socket) -> Client:
    client = Client("/nonexistent/hookd.sock", connect=False)
    client._sock = sock  # the pair's end stands for a greeted connection
    return client


def _serve(peer: socket.socket, data: bytes, cuts: list[int]) -> threading.Thread:
    """Read one request, then write ``data`` in pieces ending at ``cuts``."""

    def run() -> None:
        header = peer.recv(4, socket.MSG_WAITALL)
        (length,) = HEADER.unpack(header)
        peer.recv(length, socket.MSG_WAITALL)
        start = 0
        for cut in [*sorted(set(cuts)), len(data)]:
            if start < cut <= len(data):
                peer.sendall(data[start:cut])
                start = cut

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@settings(max_examples=60, deadline=None)
@given(
    cuts=st.lists(st.integers(min_value=1, max_value=400), max_size=6),
    earlier=st.booleans(),
    reason=st.text(max_size=120),
)
def test_decide_returns_its_own_reply_however_the_reads_cut_the_bytes(cuts: list[int], earlier: bool, reason: str) -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        client = _connected(ours)
        rid = 1  # the client's first request id
        data = b""
        if earlier:
            data += _frame(Outcome(rid + 1000, "allow", "another request's"))
        data += _frame(Outcome(rid, "deny", reason))
        thread = _serve(peer, data, cuts)
        outcome = client.decide("tool.approval.pre", {"toolName": "x"})
        thread.join(5)
        assert (outcome.decision, outcome.reason) == ("deny", reason)
        if earlier:
            assert client._pending.pop(rid + 1000).reason == "another request's"
        assert not client._pending


def _unread(sock: socket.socket) -> int:
    """Bytes this end wrote that its peer has not read yet."""
    return struct.unpack("i", fcntl.ioctl(sock, termios.TIOCOUTQ, b"\0\0\0\0"))[0]


def test_a_reply_to_another_request_read_on_its_own_is_kept_and_the_wait_goes_on() -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        client = _connected(ours)

        def run() -> None:
            peer.sendall(_frame(Outcome(77, "allow", "another request's")))
            deadline = time.monotonic() + 10
            while _unread(peer) and time.monotonic() < deadline:  # until the client has read it, alone
                time.sleep(0.001)
            (length,) = HEADER.unpack(peer.recv(4, socket.MSG_WAITALL))
            peer.recv(length, socket.MSG_WAITALL)
            peer.sendall(_frame(Outcome(1, "deny", "ours")))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        outcome = client.decide("tool.approval.pre", {})
        thread.join(5)
        assert (outcome.decision, outcome.reason) == ("deny", "ours")
        assert client._pending.pop(77).reason == "another request's"


@pytest.mark.parametrize("split", [False, True])
def test_a_reply_that_is_not_msgpack_ends_the_connection_naming_it(split: bool) -> None:
    ours, peer = socket.socketpair()
    with ours, peer:
        client = _connected(ours)
        body = b"\xc1\xc1\xc1"  # 0xc1 is never valid msgpack
        data = HEADER.pack(len(body)) + body
        thread = _serve(peer, data, [2] if split else [])
        with pytest.raises(ConnectionLost, match="not valid msgpack"):
            client.decide("tool.approval.pre", {})
        thread.join(5)
        assert client._sock is None
