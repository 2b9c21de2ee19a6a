"""Row 6: daemon memory. RSS of the idle daemon, and after attaching 10,000
sessions with 5 command hooks each (spawn mode: no process runs; this is the
daemon's own bookkeeping). Goal: idle <= 40 MB, <= 5 KB per hook beyond that.
    python bench/memory.py [--sessions N]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import Client

from bench.common import daemon, sandbox

HOOKS_PER_SESSION = 5


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def hooks(i: int) -> list[dict[str, object]]:
    # Realistic specs: distinct names, a command with arguments, some env.
    return [
        {
            "name": f"hook-{i}-{k}",
            "point": "tool.approval.pre" if k % 2 else "tool.execute.after",
            "type": "decision" if k % 2 else "observer",
            "command": "/usr/local/bin/agent-guard",
            "args": ["--mode", "strict", f"--rule={k}"],
            "env": {"GUARD_LEVEL": str(k)},
            "priority": k,
            "enabled": True,
        }
        for k in range(HOOKS_PER_SESSION)
    ]


def measure(sessions: int) -> str:
    with sandbox() as env, daemon(env, "--no-user-hooks") as proc, Client(env["HOOKD_SOCKET"]) as c:
        c.status()
        time.sleep(0.5)
        idle = rss_kib(proc.pid)
        for i in range(sessions):
            c.attach_session(f"session-{i:05d}", hooks(i), project=f"/tmp/project-{i % 50}")
        # Plan once per session, as agents do, so the plan cache is part of the figure.
        for i in range(0, sessions):
            c.decide("tool.approval.pre", {}, session=f"session-{i:05d}")
        st = c.status()
        assert st.sessions == sessions and st.hooks == sessions * HOOKS_PER_SESSION, st
        time.sleep(0.5)
        loaded = rss_kib(proc.pid)
    total = sessions * HOOKS_PER_SESSION
    per_hook = (loaded - idle) * 1024 / total
    lines = [
        "## Row 6: daemon memory (RSS)",
        "",
        "| case | RSS | goal |",
        "|---|---:|---|",
        f"| idle daemon | {idle / 1024:.1f} MiB | <= 40 MB ({'met' if idle * 1024 <= 40e6 else 'MISSED'}) |",
        f"| {sessions:,} sessions x {HOOKS_PER_SESSION} hooks ({total:,} hooks), each session decided once | {loaded / 1024:.1f} MiB | |",
        f"| per hook beyond idle | {per_hook / 1024:.2f} KiB ({per_hook:,.0f} bytes) "
        f"| <= 5 KB ({'met' if per_hook <= 5000 else 'MISSED'}) |",
    ]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", type=int, default=10_000)
    args = ap.parse_args()
    print(measure(args.sessions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
