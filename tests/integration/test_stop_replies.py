"""A stopping daemon answers every request that reached it, even those it had not read yet.

The daemon stops reading a connection whose peer does not read its replies (its
requests wait, bounded, and then stay in the socket). When a stop closes such a
connection, every whole request already sent gets exactly one reply: an answer if
it ran, ``shutting_down`` if not. Writes after that fail at the sender (the
request never left), so no request is silently dropped.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import struct
import time
from collections import Counter

from hookd_client import Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec, request_codec

from ..conftest import write_script

POINT = "tool.approval.pre"
SLOW_DENY = """
import sys, time
sys.stdin.read()
time.sleep(0.5)
print('{"decision": "deny", "reason": "slow"}')
"""


def _hello(sock: socket.socket) -> None:
    sock.sendall(request_codec().encode(m.Hello(1, m.PROTOCOL_VERSION, "stop-test", os.getpid())))
    decoder = FrameDecoder(1 << 30)
    while not (bodies := decoder.feed(sock.recv(65536))):
        pass
    assert isinstance(reply_codec().decode(bodies[0]), m.Welcome)


def _send_until_full(sock: socket.socket, first_id: int) -> list[int]:
    """Pipelined decides, never reading, until the socket takes no more; the ids sent whole."""
    codec = request_codec()
    sock.setblocking(False)
    sent: list[int] = []
    rid = first_id
    stalled = 0
    while stalled < 50:  # the daemon keeps reading until its bounds stop it: wait for that
        frame = codec.encode(m.Decide(rid, POINT, {"n": rid, "pad": "x" * 200}))
        try:
            n = sock.send(frame)
        except BlockingIOError:
            stalled += 1
            select.select([], [sock], [], 0.02)
            continue
        stalled = 0
        if n < len(frame):
            # Finish this frame blocking: a request is either whole or the test's own bug.
            sock.setblocking(True)
            sock.sendall(frame[n:])
            sock.setblocking(False)
        sent.append(rid)
        rid += 1
    sock.setblocking(True)
    return sent


def _read_all(sock: socket.socket) -> list[m.Reply]:
    codec = reply_codec()
    decoder = FrameDecoder(1 << 30)
    replies: list[m.Reply] = []
    sock.settimeout(60)
    while True:
        try:
            data = sock.recv(1 << 16)
        except ConnectionResetError:
            break
        if not data:
            break
        replies += [codec.decode(b) for b in decoder.feed(data)]
    return replies


def test_requests_unread_at_stop_each_get_one_reply(daemon_factory) -> None:  # type: ignore[no-untyped-def]
    # Small bounds, so that the daemon stops reading this connection soon.
    d = daemon_factory("--no-user-hooks", "--max-frame", "65536", "--max-pending-bytes", "65536", "--drain", "1")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(d.socket)
    _hello(sock)
    sent = _send_until_full(sock, 2)
    assert len(sent) > 1000  # replies, pending requests and the socket's buffers all full
    d.proc.send_signal(signal.SIGTERM)
    # Read only once the stop has begun (its first step removes the socket file): what the
    # daemon had not answered by then can only be answered shutting_down.
    deadline = time.monotonic() + 60
    while os.path.exists(d.socket) and time.monotonic() < deadline:
        time.sleep(0.01)
    replies = _read_all(sock)
    sock.close()
    assert d.proc.wait(60) == 0
    ids = Counter(getattr(r, "id", None) for r in replies)
    twice = [rid for rid, n in ids.items() if n > 1]
    missing = [rid for rid in sent if rid not in ids]
    assert not twice, f"answered more than once: {twice[:10]}"
    assert not missing, f"{len(missing)} of {len(sent)} requests got no reply (first: {missing[:5]})"
    kinds = Counter(type(r).__name__ if not isinstance(r, m.Error) else r.code for r in replies)
    assert set(kinds) <= {"Outcome", "shutting_down"}, kinds
    assert kinds["shutting_down"] > 0  # some were still unread or waiting when the stop came


def test_an_oversized_frame_ends_the_connection_only_after_the_requests_before_it_are_answered(daemon, tmp_path) -> None:  # type: ignore[no-untyped-def]
    # A decide that waits for its hook, then a frame header past the limit in the same write:
    # the decide's answer still comes, then the error, then the end of the connection.
    hook = write_script(tmp_path / "slow_deny.py", SLOW_DENY)
    spec = {"name": "slow-deny", "point": POINT, "type": "decision", "command": str(hook), "mode": "spawn"}
    with Client(daemon.socket) as owner:
        owner.attach_session("slow", [spec])
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(daemon.socket)
        _hello(sock)
        codec = request_codec()
        sock.sendall(codec.encode(m.Decide(7, POINT, {"n": 1}, "slow")) + struct.pack(">I", 1 << 30))
        replies = _read_all(sock)
        sock.close()
    assert [type(r).__name__ for r in replies] == ["Outcome", "Error"], replies
    outcome, error = replies
    assert isinstance(outcome, m.Outcome) and outcome.id == 7 and outcome.decision == "deny", outcome
    assert isinstance(error, m.Error) and error.code == m.ErrorCode.FRAME_TOO_LARGE, error
