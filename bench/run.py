"""Run every benchmark row, print the tables and write them to a results file.

    python bench/run.py                     # all rows, full counts; writes bench/out/RESULTS.md
    python bench/run.py --quick             # fewer round trips, for a smoke run
    python bench/run.py --rows 1,3          # some rows only
    python bench/run.py --out PATH          # write the results there instead
    python bench/run.py --update-results    # also replace the tracked bench/RESULTS.md (deliberately)

Each row measures its baseline in the same run and reports medians, p99 and the
ratio. Rows that need a feature another part of hookd provides (session
callbacks, the event stream) run that part's own script when it exists, and
print n/a otherwise. Not part of the test run.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench import builtin, client_cost, core, guarantees, memory, throughput, warm
from bench.common import ROOT

BENCH = ROOT / "bench"


def external(script: str, title: str, needs: str, quick: bool) -> str:
    """A row another part of hookd owns: run its script if it is there."""
    path = BENCH / script
    if not path.exists():
        return f"## {title}\n\nn/a (needs {needs}: bench/{script} is not in this tree)\n"
    argv = [sys.executable, str(path), *(["--quick"] if quick else [])]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 and quick:  # the script may not know --quick
        proc = subprocess.run(argv[:-1], capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        return f"## {title}\n\nfailed (exit {proc.returncode}): {proc.stderr.strip()[-1500:]}\n"
    return proc.stdout.strip() + "\n"


def row1(quick: bool) -> str:
    return core.row(3000 if quick else 20000, 2 if quick else 7)


ROWS: dict[int, Callable[[bool], str]] = {
    1: row1,
    2: lambda q: external("callback.py", "Row 2: decide through one session callback hook", "issue 5, session callbacks", q),
    3: warm.row3,
    4: warm.row4,
    5: lambda q: (
        throughput.measure(q)
        + "\n"
        + external("emit_throughput.py", "Row 5 (second half): emit with 10 subscribers", "issue 4, the event stream", q)
    ),
    6: lambda q: memory.measure(2000 if q else 10_000),
    7: lambda q: client_cost.measure(15 if q else 40),
    8: guarantees.measure,
    9: lambda q: external("observe.py", "Row 9: decide through one hook, stats on vs off", "per-hook results and stats", q),
    10: lambda q: builtin.row(1000 if q else 5000, 2 if q else 5),
}


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"- {os.cpu_count()} vCPUs ({cpu}), shared and noisy: other jobs run on it, so absolute figures move "
        f"between runs by up to 2x; ratios (baseline measured in the same run) are the figures to read.\n"
        f"- Linux {platform.release()}, Python {platform.python_version()}, load average at start: {load}.\n"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer round trips (a smoke run; noisier)")
    ap.add_argument("--rows", default="1,2,3,4,5,6,7,8,9,10", help="comma-separated row numbers (default: all)")
    ap.add_argument("--out", default=str(BENCH / "out" / "RESULTS.md"), help="results file (default bench/out/RESULTS.md, not tracked)")
    ap.add_argument("--update-results", action="store_true", help="also write the tracked bench/RESULTS.md")
    ap.add_argument("--no-write", action="store_true", help="print only; write no file")
    args = ap.parse_args()
    wanted = [int(r) for r in args.rows.split(",") if r.strip()]
    started = datetime.datetime.now(datetime.UTC)
    header = f"# hookd benchmark results\n\nRun {started:%Y-%m-%d %H:%M} UTC{' (--quick)' if args.quick else ''}.\n\n{machine()}\n"
    print(header)
    sections = []
    begun = time.monotonic()
    for number in wanted:
        t0 = time.monotonic()
        section = ROWS[number](args.quick)
        section += f"\n_row {number} took {time.monotonic() - t0:.0f} s_\n"
        print(section, flush=True)
        sections.append(section)
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    footer = f"\n_Load average at the end: {load}; the whole run took {time.monotonic() - begun:.0f} s._\n"
    print(footer)
    sections.append(footer)
    if not args.no_write:
        analysis = BENCH / "analysis.md"
        text = header + "\n".join(sections)
        if analysis.exists():
            text += "\n" + analysis.read_text()
        targets = [Path(args.out)] + ([BENCH / "RESULTS.md"] if args.update_results else [])
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
            print(f"written: {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
