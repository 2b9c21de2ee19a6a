"""Row 7: what a hook-calling process pays for hookd on its side.

Wall time of ``python -c "import hookd_client"`` and of the ``hookd emit`` CLI
(a full process: start, connect, emit, exit) against ``python -c pass``, all
started the same way (subprocess.run, output discarded).
    python bench/client_cost.py [--n 40]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Stats, daemon, sandbox, table, time_calls


def runner(argv: list[str], env: dict[str, str]):  # type: ignore[no-untyped-def]
    def call() -> None:
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)

    return call


def measure(n: int) -> str:
    py = sys.executable
    hookd = os.path.join(os.path.dirname(py), "hookd")
    cli = [hookd] if os.path.exists(hookd) else [py, "-m", "hookd"]
    with sandbox() as env, daemon(env, "--no-user-hooks"):
        warm = max(3, n // 10)
        base = Stats.of("python -c pass", time_calls(runner([py, "-c", "pass"], env), n, warm))
        imp = Stats.of('python -c "import hookd_client"', time_calls(runner([py, "-c", "import hookd_client"], env), n, warm))
        emit = Stats.of(
            f"{os.path.basename(cli[0])} emit tool.execute.after (CLI, whole process)",
            time_calls(runner([*cli, "emit", "tool.execute.after", "--payload", '{"toolName": "read"}'], env), n, warm),
        )
    rows = [(base, None, ""), (imp, base, "report"), (emit, base, "report")]
    extra = (
        f"\nimport hookd_client adds {imp.median_us - base.median_us:,.0f} µs to a Python start; "
        f"a `hookd emit` from a shell costs {emit.median_us / 1000:.1f} ms in all "
        f"({emit.median_us - base.median_us:,.0f} µs over a bare interpreter).\n"
    )
    return table("Row 7: client cost (process wall time)", rows) + extra


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=40, help="runs per case (default 40)")
    args = ap.parse_args()
    print(measure(args.n))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
