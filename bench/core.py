"""Row 1: decide with no hooks vs the raw uvloop msgpack echo floor and Redis PING.

Each round starts fresh servers (echo, hookd, and redis-server when there is one)
and measures them in alternating blocks on one connection each, with blocking
clients: the echo client does what ``Client.decide`` does on the wire (same frame,
replies read with ``recv_into`` a reusable buffer); Redis is ``PING`` through
redis-py. Per call: wall time (median of the round), the server's CPU (from
/proc, user + system) and the client's CPU (this process). Figures are the median
over rounds of each round's figure; ratios are to the echo floor of the same
round. Run unpinned and with everything on one CPU (CPU 0, as ``taskset -c 0``).

Redis is a baseline only: redis-server from Debian (``apt-get install
redis-server``) and redis-py from the Python registry (``pip install redis`` in
the venv). Without either, its rows say so and the rest runs.
    python bench/core.py [--n 20000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import msgspec
from hookd_client import Client
from hookd_client.framing import FrameDecoder, reply_codec
from hookd_client.messages import Decide

from bench.common import daemon, echo_server, pinned, process, sandbox

PAYLOAD = {"toolName": "execute_command", "args": {"command": "ls -la", "cwd": "/tmp/project"}}


def echo_caller(path: str) -> Callable[[], None]:
    """A raw client doing what Client.decide does on the wire, against the echo server."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    codec = reply_codec()
    decoder = FrameDecoder()
    raw = msgspec.msgpack.Decoder()
    buf = bytearray(65536)
    view = memoryview(buf)
    ids = iter(range(1, 1 << 62))

    def call() -> None:
        sock.sendall(codec.encode(Decide(next(ids), "tool.approval.pre", dict(PAYLOAD), "s1", None)))
        while True:
            bodies = decoder.feed(view[: sock.recv_into(buf)])
            if bodies:
                raw.decode(bodies[0])
                return

    return call


def redis_missing() -> str:
    """Why the Redis baseline cannot run here ("" when it can)."""
    if shutil.which("redis-server") is None:
        return "redis-server not installed (Debian: apt-get install redis-server)"
    try:
        import redis  # noqa: F401
    except ImportError:
        return "redis-py not installed (pip install redis, in the venv)"
    return ""


@contextlib.contextmanager
def redis_server(path: str, env: dict[str, str], cpus: set[int] | None) -> Iterator[int]:
    argv = ["redis-server", "--port", "0", "--unixsocket", path, "--save", "", "--appendonly", "no", "--daemonize", "no"]
    with process(argv, env, path, cpus) as proc:
        yield proc.pid


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc; clock-tick resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Case:
    name: str
    call: Callable[[], None]
    pid: int
    wall_ns: list[int] = field(default_factory=list)
    server_s: float = 0.0
    client_s: float = 0.0

    def block(self, n: int) -> None:
        clock = time.perf_counter_ns
        call = self.call
        s0, c0 = cpu_seconds(self.pid), time.process_time()
        for _ in range(n):
            t0 = clock()
            call()
            self.wall_ns.append(clock() - t0)
        self.server_s += cpu_seconds(self.pid) - s0
        self.client_s += time.process_time() - c0


@dataclass
class Round:
    median_us: dict[str, float]
    server_us: dict[str, float]
    client_us: dict[str, float]


def one_round(n: int, cpus: set[int] | None, blocks: int, with_redis: bool) -> Round:
    with contextlib.ExitStack() as stack:
        env = stack.enter_context(sandbox())
        stack.enter_context(pinned(cpus))
        tmp = env["HOOKD_BENCH_TMP"]
        echo_path = os.path.join(tmp, "echo.sock")
        echo = stack.enter_context(echo_server(echo_path, env, cpus))
        hookd = stack.enter_context(daemon(env, "--no-user-hooks", cpus=cpus))
        client = stack.enter_context(Client(env["HOOKD_SOCKET"]))
        # The same daemon without its journal, in the same blocks: what that guarantee costs.
        bare_env = dict(env, HOOKD_SOCKET=os.path.join(tmp, "bare", "hookd.sock"), XDG_STATE_HOME=os.path.join(tmp, "bare", "state"))
        os.makedirs(bare_env["XDG_STATE_HOME"])
        bare = stack.enter_context(daemon(bare_env, "--no-user-hooks", "--no-journal", cpus=cpus))
        bare_client = stack.enter_context(Client(bare_env["HOOKD_SOCKET"]))
        cases = [
            Case("echo", echo_caller(echo_path), echo.pid),
            Case("decide", lambda: client.decide("tool.approval.pre", PAYLOAD, session="s1"), hookd.pid),
            Case("bare", lambda: bare_client.decide("tool.approval.pre", PAYLOAD, session="s1"), bare.pid),
        ]
        if with_redis:
            import redis

            redis_path = os.path.join(tmp, "redis.sock")
            pid = stack.enter_context(redis_server(redis_path, env, cpus))
            conn = redis.Redis(unix_socket_path=redis_path)
            cases.append(Case("redis", conn.ping, pid))
        for case in cases:  # warm-up
            for _ in range(n // 10):
                case.call()
        # Alternating blocks: the cost of waking the other side moves between phases on a
        # shared VM (~20 us or ~70 us a round trip here); blocks put every case in each phase.
        # Unpinned, where the scheduler places a server also depends on which one the client
        # talked to just before (the case after the echo ran cross-CPU, 2-3x slower, whichever
        # it was), so the order turns at every block: each case follows each other alike.
        for b in range(blocks):
            turn = b % len(cases)
            for case in cases[turn:] + cases[:turn]:
                case.block(n // blocks)
        calls = (n // blocks) * blocks
        return Round(
            {c.name: statistics.median(c.wall_ns) / 1000 for c in cases},
            {c.name: c.server_s / calls * 1e6 for c in cases},
            {c.name: c.client_s / calls * 1e6 for c in cases},
        )


def _med(rounds: list[Round], attr: str, name: str) -> float:
    return statistics.median(getattr(r, attr)[name] for r in rounds)


def _span(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f}"


def measure(n: int, cpus: set[int] | None, rounds: int = 5, blocks: int = 10) -> str:
    """A table for one placement (unpinned, or ``cpus``): medians over ``rounds`` fresh runs."""
    label = f"on CPU {','.join(map(str, sorted(cpus)))} (taskset)" if cpus else "unpinned"
    missing = redis_missing()
    results = [one_round(n, cpus, blocks, not missing) for _ in range(rounds)]
    names = ["echo", "decide", "bare"] + ([] if missing else ["redis"])
    titles = {
        "echo": "uvloop msgpack echo + blocking client (the floor)",
        "decide": "hookd decide, no hooks (Client.decide)",
        "bare": "same, daemon with --no-journal (what the journal costs)",
        "redis": "redis-server PING through redis-py",
    }
    lines = [
        f"### {label}: {rounds} rounds x {n} calls per case",
        "",
        "| case | median µs | ratio to floor (median; range over rounds) | server CPU µs/call | client CPU µs/call | goal |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name in names:
        ratios = [r.median_us[name] / r.median_us["echo"] for r in results]
        if name == "echo":
            ratio, goal = "1.00x (baseline)", ""
        else:
            ratio = f"{statistics.median(ratios):.2f}x ({_span(ratios)})"
            goal = "<= 1.5x, below Redis PING" if name == "decide" else ""
        lines.append(
            f"| {titles[name]} | {_med(results, 'median_us', name):.1f} | {ratio} | "
            f"{_med(results, 'server_us', name):.1f} | {_med(results, 'client_us', name):.1f} | {goal} |"
        )
    if missing:
        lines.append(f"| redis-server PING through redis-py | skipped: {missing} | | | | |")
    dec = [r.median_us["decide"] / r.median_us["echo"] for r in results]
    gap = [r.server_us["decide"] - r.server_us["echo"] for r in results]
    client = [r.client_us["decide"] for r in results]
    journal = [r.server_us["decide"] - r.server_us["bare"] for r in results]
    verdicts = [
        f"decide / floor {statistics.median(dec):.2f}x ({'met' if statistics.median(dec) <= 1.5 else 'MISSED'}: <= 1.5x)",
        f"daemon CPU over the echo server's {statistics.median(gap):+.1f} µs per call "
        f"({'met' if statistics.median(gap) <= 10 else 'MISSED'}: within 10 µs)",
        f"of which the journal {statistics.median(journal):+.1f} µs",
        f"client CPU {statistics.median(client):.1f} µs per decide ({'met' if statistics.median(client) < 30 else 'MISSED'}: < 30 µs)",
    ]
    if not missing:
        vs = [r.median_us["decide"] / r.median_us["redis"] for r in results]
        verdicts.append(f"decide / Redis PING {statistics.median(vs):.2f}x ({'met' if statistics.median(vs) < 1 else 'MISSED'}: below)")
    return "\n".join(lines) + "\n\n" + "; ".join(verdicts) + ".\n"


def row(n: int, rounds: int) -> str:
    return "## Row 1: decide (no hooks) vs the echo floor and Redis PING\n\n" + measure(n, None, rounds) + "\n" + measure(n, {0}, rounds)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20000, help="round trips per case per round (default 20000)")
    ap.add_argument("--rounds", type=int, default=5, help="fresh runs, each with its own servers (default 5)")
    args = ap.parse_args()
    print(row(args.n, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
