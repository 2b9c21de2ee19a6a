"""What per-hook results, stats, traces and shadow support cost a decide through one hook.

Daemons side by side, each with one callback hook served by this process's client (the
cheapest hook there is, so hookd's own work per call weighs the most):
  - ``stats on``: this tree's daemon as it runs by default (per-hook results on every
    decide's event, stats counted on every call);
  - ``stats off``: the same daemon with ``--no-stats`` (results still on the events);
  - ``baseline`` (with ``--baseline-tree DIR``): a daemon run from another source tree, e.g.
    a checkout of the commit before these features.
The cases alternate in blocks of ``--n`` calls for ``--rounds`` rounds; each block's median is
taken and the ratio of the medians of a round is reported, then the median over rounds.
Goal: a decide through one hook costs at most 10% more with these features than without.
    python bench/observe.py [--rounds 9] [--n 2000] [--baseline-tree /tmp/base]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import Client

from bench.common import ROOT, sandbox, wait_socket
from bench.core import cpu_seconds

PAYLOAD = {"toolName": "execute_command", "args": {"command": "ls -la", "cwd": "/tmp/project"}}
POINT = "tool.approval.pre"
GOAL = 1.10


def allow(payload: dict) -> dict:
    return {"decision": "allow"}


@contextlib.contextmanager
def case_daemon(tree: Path | None, *extra: str) -> Iterator[tuple[str, int]]:
    """A daemon in its own sandbox, from ``tree`` (None: this tree); yields its socket and pid."""
    with sandbox() as env:
        if tree is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(tree), str(tree / "client"), env.get("PYTHONPATH", "")])
        argv = [sys.executable, "-m", "hookd", "serve", "--no-user-hooks", *extra]
        # `python -m` puts its working directory first on the path: run each daemon from its own tree.
        proc = subprocess.Popen(argv, env=env, cwd=tree or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_socket(env["HOOKD_SOCKET"], timeout=120)
            yield env["HOOKD_SOCKET"], proc.pid
        finally:
            proc.terminate()
            proc.wait(30)


def block(client: Client, session: str, n: int, pid: int) -> tuple[float, float]:
    """The median microseconds of ``n`` decides through the session's one hook, and the daemon's
    CPU microseconds per decide over the block (less disturbed by other load than wall time)."""
    clock = time.perf_counter_ns
    samples = []
    cpu = cpu_seconds(pid)
    for _ in range(n):
        t0 = clock()
        client.decide(POINT, PAYLOAD, session=session)
        samples.append(clock() - t0)
    return statistics.median(samples) / 1000, (cpu_seconds(pid) - cpu) / n * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--n", type=int, default=2000, help="decides per block (default 2000)")
    ap.add_argument("--baseline-tree", type=Path, help="a source tree whose daemon is the baseline (e.g. a checkout of main)")
    ap.add_argument("--quick", action="store_true", help="3 rounds of 300")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.n = 3, 300
    cases: list[tuple[str, Path | None, tuple[str, ...]]] = [("stats off", None, ("--no-stats",)), ("stats on", None, ())]
    if args.baseline_tree is not None:
        cases.insert(0, ("baseline", args.baseline_tree.resolve(), ()))
    medians: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    with contextlib.ExitStack() as stack:
        clients = []
        for name, tree, extra in cases:
            path, pid = stack.enter_context(case_daemon(tree, *extra))
            c = stack.enter_context(Client(path))
            c.register_decision(POINT, allow, session="cb")
            assert c.decide(POINT, PAYLOAD, session="cb").decision == "allow"
            block(c, "cb", max(100, args.n // 10), pid)  # warm up
            clients.append((name, c, pid))
        for r in range(args.rounds):
            order = clients if r % 2 == 0 else clients[::-1]  # alternate, so neither side always goes first
            for name, c, pid in order:
                wall, cpu = block(c, "cb", args.n, pid)
                medians[name].append(wall)
                cpus[name].append(cpu)
    print(report(medians, cpus, args))
    return 0


def report(medians: dict[str, list[float]], cpus: dict[str, list[float]], args: argparse.Namespace) -> str:
    base = "baseline" if "baseline" in medians else "stats off"
    lines = [
        "## decide through one callback hook: per-hook results and stats on vs off",
        "",
        f"{args.rounds} rounds x {args.n} decides per case, cases alternating. Wall: the median of the block medians;",
        "daemon CPU: µs of the daemon's user+system time per decide (clock-tick resolution, so over a whole block).",
        f"Ratios: the median over rounds of each round's ratio to {base}.",
        "",
        "| case | wall median µs | wall ratio | daemon CPU µs/decide | CPU ratio | goal |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, values in medians.items():
        ratio = statistics.median(v / b for v, b in zip(values, medians[base], strict=True))
        cpu = cpus[name]
        cpu_ratio = statistics.median(v / b if b else float("nan") for v, b in zip(cpu, cpus[base], strict=True))
        goal = "" if name == base else f"<= {GOAL:.2f}x ({'met' if ratio <= GOAL else 'MISSED'})"
        lines.append(
            f"| {name} | {statistics.median(values):.1f} | {ratio:.3f}x | {statistics.median(cpu):.1f} | {cpu_ratio:.3f}x | {goal} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
