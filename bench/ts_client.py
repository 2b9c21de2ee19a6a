"""The TypeScript client (hookd-client) against the Python client: same daemon, same run.

Two measures, each for both clients, alternating rounds so that the machine's noise falls on both alike:
- decide round trip: one `decide` on a decision point with no hooks, waited for before the next (the Python
  client both blocking and on asyncio, the TypeScript one on Node's event loop);
- pipelined throughput: rounds of SIZE decides sent at once on one connection (`Promise.all` in Node,
  `asyncio.gather` with AsyncClient in Python), decides per second per round, median over the rounds.
The TypeScript client is built with tsc first (clients/typescript, `npm ci` there).
    python bench/ts_client.py [--n 2000] [--size 2000] [--rounds 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import ROOT, Stats, daemon, sandbox, table

PACKAGE = ROOT / "clients" / "typescript"
PAYLOAD = {"tool": "bash", "args": {"command": "ls -la"}}


def build() -> str:
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        raise SystemExit(f"{PACKAGE}/node_modules is missing: run `make node-deps`")
    subprocess.run([str(tsc), "-p", "."], cwd=PACKAGE, check=True)
    return (PACKAGE / "dist" / "src" / "index.js").as_uri()


def node_round(env: dict[str, str], client: str, n: int, size: int, rounds: int) -> tuple[list[int], list[float]]:
    done = subprocess.run(
        ["node", str(ROOT / "bench" / "ts_client.mjs"), client, str(n), str(size), str(rounds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout)
    return out["rtt_ns"], [count / (ns / 1e9) for count, ns in out["pipelined"]]


def python_round(path: str, n: int, size: int, rounds: int) -> tuple[list[int], list[int], list[float]]:
    from hookd_client import AsyncClient, Client

    rtt = []
    with Client(path) as c:
        for _ in range(200):
            c.decide("tool.execute.before", PAYLOAD)
        for _ in range(n):
            t0 = time.perf_counter_ns()
            c.decide("tool.execute.before", PAYLOAD)
            rtt.append(time.perf_counter_ns() - t0)

    async def pipelined() -> tuple[list[int], list[float]]:
        rates = []
        async_rtt = []
        async with AsyncClient(path) as c:
            for _ in range(200):
                await c.decide("tool.execute.before", PAYLOAD)
            for _ in range(n):
                t0 = time.perf_counter_ns()
                await c.decide("tool.execute.before", PAYLOAD)
                async_rtt.append(time.perf_counter_ns() - t0)
            for _ in range(rounds):
                t0 = time.perf_counter_ns()
                await asyncio.gather(*(c.decide("tool.execute.before", PAYLOAD) for _ in range(size)))
                rates.append(size / ((time.perf_counter_ns() - t0) / 1e9))
        return async_rtt, rates

    async_rtt, rates = asyncio.run(pipelined())
    return rtt, async_rtt, rates


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="round trips per repeat (default 2000)")
    ap.add_argument("--size", type=int, default=2000, help="decides per pipelined round (default 2000)")
    ap.add_argument("--rounds", type=int, default=5, help="pipelined rounds per repeat (default 5)")
    ap.add_argument("--repeat", type=int, default=3, help="alternating repeats of both clients (default 3)")
    args = ap.parse_args()
    client = build()
    py_rtt: list[int] = []
    py_async_rtt: list[int] = []
    ts_rtt: list[int] = []
    py_rate: list[float] = []
    ts_rate: list[float] = []
    with sandbox() as env, daemon(env, "--no-user-hooks"):
        for _ in range(args.repeat):
            rtt, async_rtt, rate = python_round(env["HOOKD_SOCKET"], args.n, args.size, args.rounds)
            py_rtt += rtt
            py_async_rtt += async_rtt
            py_rate += rate
            rtt, rate = node_round(env, client, args.n, args.size, args.rounds)
            ts_rtt += rtt
            ts_rate += rate
    py, ts = Stats.of("Python Client.decide (blocking)", py_rtt), Stats.of("TypeScript Client.decide", ts_rtt)
    py_async = Stats.of("Python AsyncClient.decide", py_async_rtt)
    rows = [(py, None, "baseline"), (py_async, py, "-"), (ts, py, "-")]
    print(table("decide round trip, no hooks (one daemon, both clients, alternating)", rows))
    print(f"TypeScript / Python AsyncClient (both event-loop clients): {ts.median_us / py_async.median_us:.2f}x\n")
    py_med, ts_med = statistics.median(py_rate), statistics.median(ts_rate)
    print(f"## pipelined decides, {args.size} per round on one connection ({len(py_rate)} rounds each)\n")
    print("| client | median decides/s | min | max | ratio (median) |\n|---|---:|---:|---:|---:|")
    print(f"| Python AsyncClient (gather) | {py_med:,.0f} | {min(py_rate):,.0f} | {max(py_rate):,.0f} | 1.00x (baseline) |")
    print(f"| TypeScript Client (Promise.all) | {ts_med:,.0f} | {min(ts_rate):,.0f} | {max(ts_rate):,.0f} | {ts_med / py_med:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
