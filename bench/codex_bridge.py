"""What a Codex hook event costs through hookd: Codex has command hooks only, so each event spawns
`hookd bridge codex`; next to it, in the same run, spawning `sh -c 'cat >/dev/null'` (the cheapest command
hook), `python -c pass` (the floor of any Python hook) and the Claude Code Python bridge on the same event.

    python bench/codex_bridge.py [--n 200]

Medians over many runs on a shared, noisy machine: read the ratios next to the baseline of the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.bridge import NOOP, hookd_script, wall
from bench.common import Stats, daemon, sandbox, table

EVENT = json.dumps(
    {
        "session_id": "01a230d9-68a5-72a3-b617-45f2e2d99c20",
        "turn_id": "01a230d9-68b7-7222-8a47-a7fc06d3e5d3",
        "transcript_path": "/tmp/rollout.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la"},
        "tool_use_id": "call_1",
    }
).encode()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    n = ap.parse_args().n
    with sandbox() as env, daemon(env, "--no-user-hooks"):
        base = Stats.of("spawn sh -c 'cat >/dev/null' (baseline)", wall(NOOP, env, n, EVENT))
        python = Stats.of("spawn python -c pass", wall([sys.executable, "-c", "pass"], env, n // 4, EVENT))
        codex = Stats.of(
            "hookd bridge codex, PreToolUse -> decide, no hooks", wall([*hookd_script(), "bridge", "codex"], env, n // 4, EVENT)
        )
        claude = Stats.of("hookd bridge claude-code, same event", wall([*hookd_script(), "bridge", "claude-code"], env, n // 4, EVENT))
    rows = [(base, None, "baseline"), (python, base, "Python's floor"), (codex, base, "per Codex event"), (claude, base, "for comparison")]
    sys.stdout.write(table("A Codex hook event through hookd, wall time per event", rows))
    sys.stdout.write(f"- hookd bridge codex over python -c pass: {(codex.median_us - python.median_us) / 1000:.1f} ms\n")


if __name__ == "__main__":
    main()
