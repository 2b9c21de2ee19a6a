"""The bytes the daemon holds for partial frames are bounded across all its connections, and go back
to the system once those connections close. Real daemon, real sockets; memory is the daemon's
resident size from /proc, asserted with wide margins (never timings).

Each connection alone is bounded by the frame limit; many connections each sending a frame just
under it, and never the rest, would make the daemon hold frame limit x connections. Past the bound
the connection holding the largest partial frame is closed with an error naming the limit; a small
request that arrives in pieces meanwhile is answered.
"""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

import msgspec
from hookd_client.framing import FrameDecoder, request_codec
from hookd_client.messages import PROTOCOL_VERSION, Emit, Hello

MIB = 1 << 20
BOUND = 16 * MIB
FLOOD = 120  # connections, each holding a frame just under 1 MiB: unbounded, ~120 MiB
HANG_GUARD = 120.0  # seconds; only so a bug cannot hang the suite


def rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def partial(sock_path: str) -> socket.socket:
    """A connection that sends all but the last 100 bytes of a frame of just under 1 MiB."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(sock_path)
    size = MIB - 64
    sock.sendall(struct.pack(">I", size) + b"\x00" * (size - 100))
    return sock


def closed_with(sock: socket.socket) -> bytes | None:
    """What the daemon sent before closing ``sock``, or None while it is still open."""
    sock.setblocking(False)
    got = b""
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return got
            got += data
    except BlockingIOError:
        return None


def test_partial_frames_are_bounded_in_total_and_their_memory_goes_back(daemon_factory: Any) -> None:
    # Only the bound closes the flood: its connections never say hello, and the hello deadline is far off.
    daemon = daemon_factory("--max-held-bytes", str(BOUND), "--hello-timeout", "3600")
    assert daemon.proc is not None
    pid = daemon.proc.pid
    codec = request_codec()

    # A well-behaved client whose small request arrives in two pieces, around the flood.
    small = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    small.connect(daemon.socket)
    small.settimeout(HANG_GUARD)
    small.sendall(codec.encode(Hello(1, PROTOCOL_VERSION, "small")))
    replies = FrameDecoder()
    while not replies.feed(small.recv(65536)):
        pass
    request = codec.encode(Emit(2, "custom.small", {"text": "x" * 2000}))
    small.sendall(request[:1000])
    baseline = rss(pid)

    flood = [partial(daemon.socket) for _ in range(FLOOD)]
    # At most BOUND bytes are held: at least FLOOD - BOUND/1MiB of them are closed, each told why.
    deadline = time.monotonic() + HANG_GUARD
    ended: dict[int, bytes] = {}
    while len(ended) < FLOOD - BOUND // MIB:
        assert time.monotonic() < deadline, f"only {len(ended)} of {FLOOD} over-the-bound connections were closed"
        for i, sock in enumerate(flood):
            if i not in ended and (got := closed_with(sock)) is not None:
                ended[i] = got
        time.sleep(0.02)
    held = rss(pid) - baseline
    assert held < 64 * MIB, f"the daemon grew by {held >> 20} MiB for partial frames bounded to {BOUND >> 20} MiB"
    for got in ended.values():
        error = msgspec.msgpack.decode(got[4:])
        assert error["type"] == "error" and error["code"] == "limit_exceeded", error
        assert "--max-held-bytes" in error["message"] and "partial frames" in error["message"], error

    # The small request, completed now, is answered.
    small.sendall(request[1000:])
    answers: list[bytes] = []
    while not answers:
        answers = replies.feed(small.recv(65536))
    reply = msgspec.msgpack.decode(answers[0])
    assert reply["id"] == 2 and reply["type"] != "error", reply
    small.close()

    # Once every connection has closed, the memory goes back (within a wide margin).
    grown = rss(pid)
    for sock in flood:
        sock.close()
    deadline = time.monotonic() + HANG_GUARD
    while rss(pid) - baseline > 8 * MIB:
        kept = (rss(pid) - baseline) >> 20
        assert time.monotonic() < deadline, f"the daemon kept {kept} MiB after the connections closed (held {(grown - baseline) >> 20} MiB)"
        time.sleep(0.1)
    assert daemon.stop() == 0
