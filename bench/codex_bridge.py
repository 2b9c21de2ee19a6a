"""What a Codex hook event costs through hookd: Codex has command hooks only, so each event spawns a
process: the compiled shim (`claude-shim EVENT PORT TOKEN_FILE --agent codex`, one loopback request to the
daemon's /codex/ endpoint), or the Python bridge `hookd bridge codex`; next to them, in the same run, spawning
`sh -c 'cat >/dev/null'` (the cheapest command hook), `python -c pass` (the floor of any Python hook) and the
Claude Code Python bridge on the same event.

    python bench/codex_bridge.py [--n 200]

Medians over many runs on a shared, noisy machine: read the ratios next to the baseline of the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.bridge import NOOP, endpoint, hookd_script, wall
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
    from hookd.agents import shim

    with sandbox() as env, tempfile.TemporaryDirectory(prefix="hookd-shim-") as tmp, daemon(env, "--no-user-hooks") as proc:
        port, _ = endpoint(env, proc.pid)
        token_file = str(Path(env["XDG_STATE_HOME"]) / "hookd" / "http-token")
        built = shim.build(Path(tmp))
        base = Stats.of("spawn sh -c 'cat >/dev/null' (baseline)", wall(NOOP, env, n, EVENT))
        shimmed = None
        if built.path:
            argv = [built.path, "PreToolUse", str(port), token_file, "--agent", "codex"]
            shimmed = Stats.of("shim --agent codex (spawn + HTTP), PreToolUse -> decide, no hooks", wall(argv, env, n, EVENT))
        python = Stats.of("spawn python -c pass", wall([sys.executable, "-c", "pass"], env, n // 4, EVENT))
        codex = Stats.of(
            "hookd bridge codex, PreToolUse -> decide, no hooks", wall([*hookd_script(), "bridge", "codex"], env, n // 4, EVENT)
        )
        claude = Stats.of("hookd bridge claude-code, same event", wall([*hookd_script(), "bridge", "claude-code"], env, n // 4, EVENT))
    rows = [(base, None, "baseline")]
    rows += [(shimmed, base, "per Codex event (installed)")] if shimmed else []
    rows += [(python, base, "Python's floor"), (codex, base, "without a C compiler"), (claude, base, "for comparison")]
    sys.stdout.write(table("A Codex hook event through hookd, wall time per event", rows))
    if shimmed:
        sys.stdout.write(f"- shim over the baseline: {(shimmed.median_us - base.median_us) / 1000:.2f} ms\n")
    else:
        sys.stdout.write(f"- shim: not built ({built.why})\n")
    sys.stdout.write(f"- hookd bridge codex over python -c pass: {(codex.median_us - python.median_us) / 1000:.1f} ms\n")


if __name__ == "__main__":
    main()
