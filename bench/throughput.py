"""Row 5 (first half): emit throughput vs the echo floor, driven the same way.

Pipelined: one connection, a window of 128 emits in flight (sent in one write,
replies read as they come). Concurrent: 16 connections, each one emit at a
time, driven from one thread with a selector. The same frames go to the echo
server. Goal: >= 50% of the floor. Figures are events/s; median and worst of
several runs. Two more daemons run the pipelined case in the same rounds, to
show what two of the bus's guarantees cost: one without its journal, one that
keeps 100 events for replay instead of 10,000. Measured unpinned, then with
the servers and the client on CPU 0 (as row 1).
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

from bench.common import daemon, echo_server, pinned, sandbox

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
    return total / pipelined_seconds(path, frames(1), total, window)


def pipelined_seconds(path: str, one: bytes, total: int, window: int) -> float:
    """Seconds for ``total`` copies of the request frame ``one`` to be answered on one connection
    with ``window`` in flight: the first window sent in one write, then as many as were answered."""
    sock = connect(path)
    decoder = FrameDecoder(1 << 30)
    start = time.perf_counter()
    sent, received = min(window, total), 0
    sock.sendall(one * sent)
    while received < total:
        got = len(decoder.feed(sock.recv(1 << 20)))
        received += got
        if got and sent < total:
            k = min(got, total - sent)
            sock.sendall(one * k)
            sent += k
    elapsed = time.perf_counter() - start
    sock.close()
    return elapsed


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


def cpu_seconds(pid: int) -> float:
    """User+system CPU the process has used, all its threads (Linux /proc; 10 ms resolution)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Runs = tuple[list[float], list[float]]  # events/s and the server's CPU µs per event, one entry per round


def interleaved(fn, servers: list[tuple[str, int]], total: int, repeat: int) -> list[Runs]:  # type: ignore[no-untyped-def]
    """Alternate the servers' runs round by round, so load changes on a shared machine hit all alike.

    The order turns at every round. Unpinned, where the scheduler places a server depends on
    which one the client talked to just before; in a fixed order, the daemon always followed the
    echo server and inherited whatever placement that left."""
    for path, _ in servers:
        fn(path, total // 5)  # warm-up
    runs: list[Runs] = [([], []) for _ in servers]
    for r in range(repeat):
        turn = r % len(servers)
        for k in [*range(turn, len(servers)), *range(turn)]:
            path, pid = servers[k]
            rates, cpus = runs[k]
            cpu0 = cpu_seconds(pid)
            rates.append(fn(path, total))
            cpus.append((cpu_seconds(pid) - cpu0) / total * 1e6)
    return runs


def row(label: str, runs: Runs, floor: Runs, goal: str) -> str:
    rates, cpus = runs
    share = statistics.median(a / b for a, b in zip(rates, floor[0], strict=True))
    cpu_ratio = statistics.median(a / b for a, b in zip(cpus, floor[1], strict=True) if b > 0) if any(floor[1]) else 0.0
    return (
        f"| {label} | {statistics.median(rates):,.0f} | {min(rates):,.0f} | {share:.0%} | "
        f"{statistics.median(cpus):.1f} ({cpu_ratio:.1f}x) | {goal} |"
    )


def measure(quick: bool) -> str:
    """Row 5's first half, unpinned and then with every process on CPU 0, as row 1 is measured."""
    return "## Row 5: emit throughput (no hooks) vs the echo floor\n\n" + placement(quick, None) + "\n" + placement(quick, {0})


def placement(quick: bool, cpus: set[int] | None) -> str:
    total, repeat = (20_000, 4) if quick else (100_000, 8)
    load0 = os.getloadavg()
    with sandbox() as env, sandbox() as bare, sandbox() as short, pinned(cpus):
        echo_path = os.path.join(env["HOOKD_BENCH_TMP"], "echo.sock")
        with (
            echo_server(echo_path, env, cpus) as echo,
            daemon(env, "--no-user-hooks", cpus=cpus) as hookd,
            # The same daemon without the event journal, measured in the same rounds: what the journal costs.
            daemon(bare, "--no-user-hooks", "--no-journal", cpus=cpus) as no_journal,
            # ... and one that keeps 100 events for replay instead of 10,000: what the history ring costs.
            daemon(short, "--no-user-hooks", "--history", "100", cpus=cpus) as short_history,
        ):
            servers = [
                (echo_path, echo.pid),
                (env["HOOKD_SOCKET"], hookd.pid),
                (bare["HOOKD_SOCKET"], no_journal.pid),
                (short["HOOKD_SOCKET"], short_history.pid),
            ]
            pipe = interleaved(pipelined, servers, total, repeat)
            conc = interleaved(concurrent, servers[:2], total // 4, repeat)
    load1 = os.getloadavg()
    met = "met" if statistics.median(a / b for a, b in zip(pipe[1][0], pipe[0][0], strict=True)) >= 0.5 else "MISSED"
    conc_met = "met" if statistics.median(a / b for a, b in zip(conc[1][0], conc[0][0], strict=True)) >= 0.5 else "MISSED"
    where = f"on CPU {','.join(map(str, sorted(cpus)))} (taskset)" if cpus else "unpinned"
    lines = [
        f"### {where}",
        "",
        f"{repeat} rounds, the servers alternating within each, in an order that turns every round; "
        f"load average {load0[0]:.1f} at start, {load1[0]:.1f} at end.",
        "",
        "| case | median events/s | worst events/s | % of floor (median of rounds) | server CPU µs/event (x floor's) | goal |",
        "|---|---:|---:|---:|---:|---|",
        row("echo floor, pipelined, 1 connection, 128 in flight", pipe[0], pipe[0], "baseline"),
        row("emit, pipelined, 1 connection, 128 in flight", pipe[1], pipe[0], f">= 50% ({met})"),
        row("emit, pipelined, same rounds, daemon with --no-journal", pipe[2], pipe[0], "what the journal costs"),
        row("emit, pipelined, same rounds, daemon with --history 100", pipe[3], pipe[0], "what the 10,000-event history costs"),
        row("echo floor, 16 connections, 1 in flight each", conc[0], conc[0], "baseline"),
        row("emit, 16 connections, 1 in flight each", conc[1], conc[0], f">= 50% ({conc_met})"),
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer events")
    args = ap.parse_args()
    print(measure(args.quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
