"""Issue 5 / bench row 2: decide through one callback hook, against the echo floor, same run.

Rows (one daemon, one agent process, blocking Client):
  0. the raw uvloop msgpack echo floor (bench/core.py's) - the baseline of the goal (<= 3x)
  1. decide, no hooks, plain client (no handler registered: no reader thread)
  2. decide, no hooks, from a client that serves a handler (its calls go through the reader thread)
  3. decide through one callback hook served by that same client (sync handler)
  4. the same through an AsyncClient with an async handler, one call at a time
Reported as medians, p99 and ratios to the floor; the last line gives row 3 against row 1.
    python bench/callback.py [--n 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import AsyncClient, Client

from bench.common import Stats, daemon, echo_server, sandbox, table, time_calls
from bench.core import echo_caller

PAYLOAD = {"toolName": "execute_command", "args": {"command": "ls -la", "cwd": "/tmp/project"}}
POINT = "tool.approval.pre"


def allow(payload: dict) -> dict:
    return {"decision": "allow"}


async def async_row(path: str, n: int) -> Stats:
    async def handler(payload: dict) -> dict:
        return {"decision": "allow"}

    async with AsyncClient(path) as c:
        await c.register_decision(POINT, handler, session="async")
        for _ in range(n // 10):
            await c.decide(POINT, PAYLOAD, session="async")
        clock = time.perf_counter_ns
        samples = []
        for _ in range(n):
            t0 = clock()
            await c.decide(POINT, PAYLOAD, session="async")
            samples.append(clock() - t0)
    return Stats.of("decide, one async handler (AsyncClient)", samples)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=5000, help="round trips per case (default 5000)")
    args = ap.parse_args()
    n = args.n
    with sandbox() as env:
        echo_path = os.path.join(env["HOOKD_BENCH_TMP"], "echo.sock")
        with echo_server(echo_path, env):
            floor = Stats.of("echo floor", time_calls(echo_caller(echo_path), n, n // 10))
        rows = measure(env, n)
    print(
        table(
            "decide through one callback hook vs the echo floor",
            [(floor, None, ""), *((s, floor, "<= 3x" if s is rows[2] else "") for s in rows)],
        )
    )
    print(f"sync handler vs decide with no hooks (same daemon): {rows[2].median_us / rows[0].median_us:.2f}x")
    return 0


def measure(env: dict[str, str], n: int) -> list[Stats]:
    with daemon(env, "--no-user-hooks"):
        path = env["HOOKD_SOCKET"]
        with Client(path) as plain:
            base = Stats.of("decide, no hooks (plain client)", time_calls(lambda: plain.decide(POINT, PAYLOAD, session="none"), n, n // 10))
        with Client(path) as agent:
            agent.register_decision(POINT, allow, session="cb")
            serving = Stats.of(
                "decide, no hooks (client serving a handler)", time_calls(lambda: agent.decide(POINT, PAYLOAD, session="none"), n, n // 10)
            )
            cb = Stats.of("decide, one sync handler (Client)", time_calls(lambda: agent.decide(POINT, PAYLOAD, session="cb"), n, n // 10))
            assert agent.decide(POINT, PAYLOAD, session="cb").decision == "allow"
        aio = asyncio.run(async_row(path, n))
    return [base, serving, cb, aio]


if __name__ == "__main__":
    raise SystemExit(main())
