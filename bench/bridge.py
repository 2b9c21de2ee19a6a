"""The agent bridge's cost per hook event: `hookd bridge claude-code` wall time vs `python -c pass`.

Claude Code starts the bridge as a new process for every event, so what it
costs is interpreter start-up plus imports plus one round trip. Each case runs
the process end to end (spawn, stdin, exit) and is reported next to the floor
measured in the same run: `python -c pass` with the same interpreter.
    python bench/bridge.py [--n 40]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Stats, daemon, sandbox, table

EVENT = json.dumps(
    {
        "session_id": "bench",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "toolu_1",
    }
).encode()


def hookd_script() -> list[str]:
    """The console script an agent would run (the installed `hookd`), else `python -m hookd`."""
    script = os.path.join(os.path.dirname(sys.executable), "hookd")
    return [script] if os.path.exists(script) else [sys.executable, "-m", "hookd"]


def wall(argv: list[str], env: dict[str, str], n: int, stdin: bytes = b"") -> list[int]:
    out = []
    for i in range(n + 3):
        t0 = time.perf_counter_ns()
        done = subprocess.run(argv, input=stdin, env=env, capture_output=True, check=False)
        elapsed = time.perf_counter_ns() - t0
        if done.returncode != 0:
            raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode()}")
        if i >= 3:  # warm the page cache first
            out.append(elapsed)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=40, help="runs per case (default 40)")
    args = ap.parse_args()
    bridge = [*hookd_script(), "bridge", "claude-code"]
    with sandbox() as env:
        floor = Stats.of("python -c pass", wall([sys.executable, "-c", "pass"], env, args.n))
        down = Stats.of("bridge, daemon down (exit 0, one stderr line)", wall(bridge, env, args.n, EVENT))
        imports = Stats.of(
            "python -c 'import hookd.bridges.run, hookd_client.client'",
            wall([sys.executable, "-c", "import hookd.bridges.run, hookd_client.client"], env, args.n),
        )
        with daemon(env, "--no-user-hooks"):
            up = Stats.of("bridge PreToolUse -> decide, no hooks", wall(bridge, env, args.n, EVENT))
    rows = [
        (floor, None, "floor"),
        (imports, floor, "imports only"),
        (down, floor, "-"),
        (up, floor, "start-up + one decide"),
    ]
    print(table(f"hookd bridge claude-code, wall time per event ({' '.join(bridge[:1])})", rows))
    print(f"bridge overhead over the floor (daemon up): {up.median_us / 1000 - floor.median_us / 1000:.1f} ms median")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
