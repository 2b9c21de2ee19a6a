"""Emit throughput with 0, 1 and 10 subscribers, in one run (not part of the tests).

Starts a private daemon per configuration (temp dirs, no user hooks), attaches
N subscriber processes that read every event, then measures:

- pipelined: an AsyncClient keeps ``--window`` emits in flight (daemon-bound throughput);
- sequential: a blocking Client emits one at a time (what one agent sees).

Prints events/s and the ratio to the no-subscriber run with the journal on
(the default). Subscribers count what they received and any gap, so a run
where readers fell behind says so instead of looking fast.

    .venv/bin/python bench/emit_throughput.py [--events 50000] [--window 256]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hookd_client import AsyncClient, Client, Gap

END = "custom.bench.end"


def wait_for(path: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            Client(path).close()
            return
        except Exception:
            time.sleep(0.05)
    raise SystemExit(f"no daemon on {path}")


def cpu_seconds(pid: int) -> float:
    """User+system CPU the process has used (Linux /proc; 10 ms resolution)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def reader(path: str, ready: mp.Event, result: mp.Queue) -> None:  # type: ignore[type-arg]
    got = missed = 0
    with Client(path).subscribe(["custom.bench*"], queue=1_000_000) as sub:
        ready.set()
        for item in sub:
            if isinstance(item, Gap):
                missed += item.missed
            elif item.point == END:
                break
            else:
                got += 1
    result.put((got, missed))


async def pipelined(path: str, n: int, window: int) -> float:
    async with AsyncClient(path) as c:
        t0 = time.perf_counter()
        for start in range(0, n, window):
            await asyncio.gather(*(c.emit("custom.bench", {"i": i, "tool": "bash"}) for i in range(start, min(n, start + window))))
        return time.perf_counter() - t0


def sequential(path: str, n: int) -> float:
    with Client(path) as c:
        t0 = time.perf_counter()
        for i in range(n):
            c.emit("custom.bench", {"i": i, "tool": "bash"})
        return time.perf_counter() - t0


def run_config(subscribers: int, journal: bool, events: int, window: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_STATE_HOME=f"{tmp}/state", XDG_CONFIG_HOME=f"{tmp}/config", HOME=tmp)
        sock = f"{tmp}/hookd.sock"
        cmd = [sys.executable, "-m", "hookd", "serve", "--socket", sock, "--no-user-hooks", "--log-level", "error"]
        if not journal:
            cmd.append("--no-journal")
        daemon = subprocess.Popen(cmd, env=env)
        try:
            wait_for(sock)
            ctx = mp.get_context("spawn")
            results: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
            procs = []
            for _ in range(subscribers):
                ready = ctx.Event()
                p = ctx.Process(target=reader, args=(sock, ready, results), daemon=True)
                p.start()
                ready.wait(30)
                procs.append(p)
            seq_n = max(1, events // 5)
            cpu0 = cpu_seconds(daemon.pid)
            pipe_s = asyncio.run(pipelined(sock, events, window))
            cpu1 = cpu_seconds(daemon.pid)
            seq_s = sequential(sock, seq_n)
            cpu2 = cpu_seconds(daemon.pid)
            with Client(sock) as c:
                c.emit(END, {})
            received = [results.get(timeout=120) for _ in procs]
            for p in procs:
                p.join(10)
            total = events + seq_n
            lost = sum(m for _, m in received)
            short = sum(total - g - m for g, m in received)
            journal_lines = 0
            jpath = Path(tmp, "state", "hookd", "events.jsonl")
            if journal:
                daemon.terminate()
                daemon.wait(15)
                journal_lines = sum(1 for f in jpath.parent.glob("events.jsonl*") for _ in f.open("rb"))
            return {
                "pipelined": events / pipe_s,
                "sequential": seq_n / seq_s,
                "cpu_pipe": (cpu1 - cpu0) / events * 1e6,
                "cpu_seq": (cpu2 - cpu1) / seq_n * 1e6,
                "gaps": lost,
                "short": short,
                "journal": journal_lines,
            }
        finally:
            if daemon.poll() is None:
                daemon.terminate()
                daemon.wait(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=50_000, help="pipelined emits per configuration (sequential: a fifth)")
    parser.add_argument("--window", type=int, default=256, help="emits in flight in the pipelined run")
    args = parser.parse_args()
    configs = [("0 subscribers, no journal", 0, False), ("0 subscribers", 0, True), ("1 subscriber", 1, True), ("10 subscribers", 10, True)]
    rows = []
    for label, subs, journal in configs:
        print(f"running: {label} ...", file=sys.stderr, flush=True)
        rows.append((label, run_config(subs, journal, args.events, args.window)))
    base = rows[1][1]
    print(f"\nemit throughput, {args.events} pipelined (window {args.window}) + {args.events // 5} sequential emits per row")
    print(
        f"{'configuration':<28}{'pipelined/s':>12}{'ratio':>7}{'cpu us/ev':>10}{'ratio':>7}"
        f"{'sequential/s':>13}{'ratio':>7}{'cpu us/ev':>10}{'ratio':>7}{'missed':>8}{'journal':>9}"
    )
    for label, r in rows:
        print(
            f"{label:<28}{r['pipelined']:>12,.0f}{r['pipelined'] / base['pipelined']:>7.2f}"
            f"{r['cpu_pipe']:>10.1f}{r['cpu_pipe'] / base['cpu_pipe']:>7.2f}"
            f"{r['sequential']:>13,.0f}{r['sequential'] / base['sequential']:>7.2f}"
            f"{r['cpu_seq']:>10.1f}{r['cpu_seq'] / base['cpu_seq']:>7.2f}"
            f"{int(r['gaps'] + r['short']):>8}{int(r['journal']):>9}"
        )
    print(
        "ratio: to '0 subscribers' (journal on, the default). cpu us/ev: the daemon's own CPU per event "
        "(steadier than wall-clock rates on a shared machine).\nmissed: events some subscriber did not get "
        "(0 expected). journal: lines on disk after the run."
    )


if __name__ == "__main__":
    main()
