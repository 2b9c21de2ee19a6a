"""Row 5 (first half): emit throughput vs the echo floor, driven the same way.

Pipelined: one connection, a window of 128 emits in flight (sent in one write,
replies read as they come). Concurrent: 16 connections, each one emit at a
time, driven from one thread with a selector. The same frames go to the echo
server. Goal: >= 50% of the floor. Figures are events/s; median and worst of
several runs.
    python bench/throughput.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import selectors
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client.framing import FrameDecoder, request_codec
from hookd_client.messages import PROTOCOL_VERSION, Emit, Hello

from bench.common import daemon, echo_server, sandbox

POINT = "tool.execute.after"
PAYLOAD = {"toolName": "read_file", "duration": 12, "args": {"path": "/tmp/project/README.md"}}


def connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    codec = request_codec()
    sock.sendall(codec.encode(Hello(0, PROTOCOL_VERSION, "bench")))  # the echo server just echoes it
    decoder = FrameDecoder(1 << 30)
    while not decoder.feed(sock.recv(65536)):
        pass
    return sock


def frames(n: int) -> bytes:
    codec = request_codec()
    return b"".join(codec.encode(Emit(i + 1, POINT, PAYLOAD, "s1")) for i in range(n))


def pipelined(path: str, total: int, window: int = 128) -> float:
    """Events/s on one connection with ``window`` requests in flight."""
    sock = connect(path)
    one = frames(1)
    batch = one * window
    decoder = FrameDecoder(1 << 30)
    sent = received = 0
    start = time.perf_counter()
    sock.sendall(batch)
    sent += window
    while received < total:
        got = len(decoder.feed(sock.recv(1 << 20)))
        received += got
        if got and sent < total:
            k = min(got, total - sent)
            sock.sendall(one * k)
            sent += k
    elapsed = time.perf_counter() - start
    sock.close()
    return total / elapsed


def concurrent(path: str, total: int, connections: int = 16) -> float:
    """Events/s over ``connections`` connections, each with one request in flight."""
    socks = [connect(path) for _ in range(connections)]
    one = frames(1)
    sel = selectors.DefaultSelector()
    decoders = {}
    for s in socks:
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        decoders[s] = FrameDecoder(1 << 30)
    sent = received = 0
    start = time.perf_counter()
    for s in socks:
        s.send(one)
        sent += 1
    while received < total:
        for key, _ in sel.select():
            s = key.fileobj
            got = len(decoders[s].feed(s.recv(65536)))  # type: ignore[union-attr]
            received += got
            for _ in range(got):
                if sent < total:
                    s.send(one)  # type: ignore[union-attr]
                    sent += 1
    elapsed = time.perf_counter() - start
    for s in socks:
        sel.unregister(s)
        s.close()
    return total / elapsed


def interleaved(fn, floor_path: str, path: str, total: int, repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:  # type: ignore[no-untyped-def]
    """Alternate floor and daemon runs, so load changes on a shared machine hit both alike."""
    fn(floor_path, total // 5)  # warm-up
    fn(path, total // 5)
    floor, emit = [], []
    for _ in range(repeat):
        floor.append(fn(floor_path, total))
        emit.append(fn(path, total))
    return (statistics.median(floor), min(floor)), (statistics.median(emit), min(emit))


def measure(quick: bool) -> str:
    total, repeat = (20_000, 3) if quick else (100_000, 7)
    results = {}
    with sandbox() as env:
        echo_path = os.path.join(env["HOOKD_BENCH_TMP"], "echo.sock")
        with echo_server(echo_path, env), daemon(env, "--no-user-hooks"):
            results["floor_pipe"], results["emit_pipe"] = interleaved(pipelined, echo_path, env["HOOKD_SOCKET"], total, repeat)
            results["floor_conc"], results["emit_conc"] = interleaved(concurrent, echo_path, env["HOOKD_SOCKET"], total // 4, repeat)
    # Diagnostic: the same pipelined run with the event journal off (its writer thread's cost).
    with sandbox() as env:
        echo_path = os.path.join(env["HOOKD_BENCH_TMP"], "echo.sock")
        with echo_server(echo_path, env), daemon(env, "--no-user-hooks", "--no-journal"):
            results["floor_nojournal"], results["emit_nojournal"] = interleaved(pipelined, echo_path, env["HOOKD_SOCKET"], total, repeat)
    lines = [
        "## Row 5: emit throughput (no hooks) vs the echo floor",
        "",
        "| case | median events/s | worst events/s | % of floor (median) | goal |",
        "|---|---:|---:|---:|---|",
    ]
    for kind, label in (("pipe", "pipelined, 1 connection, 128 in flight"), ("conc", "16 connections, 1 in flight each")):
        floor, emit = results[f"floor_{kind}"], results[f"emit_{kind}"]
        share = emit[0] / floor[0]
        lines.append(f"| echo floor, {label} | {floor[0]:,.0f} | {floor[1]:,.0f} | 100% (baseline) | |")
        lines.append(f"| emit, {label} | {emit[0]:,.0f} | {emit[1]:,.0f} | {share:.0%} | >= 50% ({'met' if share >= 0.5 else 'MISSED'}) |")
    floor, emit = results["floor_nojournal"], results["emit_nojournal"]
    lines.append(f"| echo floor, pipelined (diagnostic run) | {floor[0]:,.0f} | {floor[1]:,.0f} | 100% (baseline) | |")
    lines.append(
        f"| emit, pipelined, daemon run with --no-journal | {emit[0]:,.0f} | {emit[1]:,.0f} | {emit[0] / floor[0]:.0%} | diagnostic |"
    )
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer events")
    args = ap.parse_args()
    print(measure(args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
