"""Row 1: decide with no hooks vs the raw uvloop msgpack echo floor.

Same client style for both (a blocking Unix socket), same payload, one
connection. Run unpinned and with client and server on one CPU.
    python bench/core.py [--n 20000]
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import Client
from hookd_client.framing import FrameDecoder, reply_codec
from hookd_client.messages import Decide

from bench.common import Stats, daemon, echo_server, pinned, sandbox, table, time_calls

PAYLOAD = {"toolName": "execute_command", "args": {"command": "ls -la", "cwd": "/tmp/project"}}


def echo_caller(path: str):  # type: ignore[no-untyped-def]
    """A raw client doing what Client.decide does on the wire, against the echo server."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    codec = reply_codec()
    decoder = FrameDecoder()
    import msgspec

    raw = msgspec.msgpack.Decoder()
    ids = iter(range(1, 1 << 62))

    def call() -> None:
        sock.sendall(codec.encode(Decide(next(ids), "tool.approval.pre", dict(PAYLOAD), "s1", None)))
        while True:
            bodies = decoder.feed(sock.recv(262144))
            if bodies:
                raw.decode(bodies[0])
                return

    return call


def measure(n: int, cpus: set[int] | None, blocks: int = 10) -> list[tuple[Stats, Stats | None, str]]:
    """Floor and decide, both servers up, measured in alternating blocks of n/blocks calls.

    Alternating matters on a shared VM: the cost of waking the other side moves
    between phases (~20 us or ~70 us a round trip here), and measuring one case
    after the other can put them in different phases.
    """
    label = "one CPU" if cpus else "unpinned"
    floor_ns: list[int] = []
    decide_ns: list[int] = []
    with sandbox() as env, pinned(cpus):
        echo_path = os.path.join(env["HOOKD_BENCH_TMP"], "echo.sock")
        with echo_server(echo_path, env, cpus), daemon(env, "--no-user-hooks", cpus=cpus), Client(env["HOOKD_SOCKET"]) as c:
            echo = echo_caller(echo_path)

            def decide() -> None:
                c.decide("tool.approval.pre", PAYLOAD, session="s1")

            time_calls(echo, 0, n // 10)
            time_calls(decide, 0, n // 10)
            for _ in range(blocks):
                floor_ns += time_calls(echo, n // blocks, 0)
                decide_ns += time_calls(decide, n // blocks, 0)
    floor = Stats.of(f"echo floor ({label})", floor_ns)
    return [(floor, None, ""), (Stats.of(f"decide, no hooks ({label})", decide_ns), floor, "<= 1.5x")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20000, help="round trips per case (default 20000)")
    args = ap.parse_args()
    rows = measure(args.n, None) + measure(args.n, {0})
    print(table("decide (no hooks) vs raw echo", rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
