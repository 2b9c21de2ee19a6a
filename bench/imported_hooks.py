"""What an imported Claude Code hook costs inside hookd, next to running the same hook directly.

A Bash validator in the style of Claude Code's example (tests/corpus/hooks/bash_validator.py) is run
four ways in the same run: `sh -c 'cat >/dev/null'` (the cheapest command hook), the hook run directly
as Claude Code runs it (bash -c, hook input on stdin), the hook imported (`format: claude-code`, the
daemon runs it itself) and asked through a decide, and the hook behind the wrapper process imports
used before (`hookd bridge run-hook claude-code -- ...`). The bridge's own cost (HTTP path, shim) is
bench/bridge.py's; this is the part each hook adds.

    python bench/imported_hooks.py [--n 40]

Medians; the machine is shared and noisy, so read the differences next to the direct run of the same
run. bench/imported_hooks.md records a run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.bridge import INPUT
from bench.common import ROOT, Stats, daemon, sandbox, table, time_calls

HOOK = ROOT / "tests" / "corpus" / "hooks" / "bash_validator.py"
COMMAND = f"{sys.executable} {HOOK}"


def hooks_file() -> str:
    lines = ["hooks:"]
    for name, point, extra in (
        ("imported", "custom.bench.imported", ["format: claude-code", "command: bash", f"args: ['-c', {COMMAND!r}]"]),
        (
            "wrapped",
            "custom.bench.wrapped",
            [
                f"command: {sys.executable}",
                f"args: ['-m', 'hookd', 'bridge', 'run-hook', 'claude-code', '--', 'bash', '-c', {COMMAND!r}]",
            ],
        ),
    ):
        lines += [f"  - name: {name}", f"    point: {point}", "    type: decision", "    enabled: true", "    timeout: 60"]
        lines += [f"    {line}" for line in extra]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    args = parser.parse_args()
    from hookd_client import Client

    from hookd.agents import dialect
    from hookd.agents.claude_code import protocol as cc

    stdin = json.dumps(INPUT).encode()
    with sandbox() as env:
        path = os.path.join(env["XDG_CONFIG_HOME"], "hookd", "hooks.yaml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(hooks_file())
        payload = dialect.route(cc.DIALECT, INPUT, {"PATH": env["PATH"]}).payload

        def run(argv: list[str]) -> None:
            subprocess.run(argv, input=stdin, env=env, capture_output=True, check=True)

        with daemon(env), Client(env["HOOKD_SOCKET"]) as client:

            def decide(point: str) -> None:
                out = client.decide(point, payload)
                assert out.errors == [] and out.decision is None, out

            cases = {
                "noop": lambda: run(["sh", "-c", "cat >/dev/null"]),
                "direct": lambda: run(["bash", "-c", COMMAND]),
                "imported": lambda: decide("custom.bench.imported"),
                "wrapped": lambda: decide("custom.bench.wrapped"),
            }
            # Interleaved, one call of each case per round, so that the machine's load falls on all alike.
            samples: dict[str, list[int]] = {name: [] for name in cases}
            for i in range(args.n + 3):
                order = list(cases)[i % len(cases) :] + list(cases)[: i % len(cases)]
                for name in order:
                    took = time_calls(cases[name], 1, 0)[0]
                    if i >= 3:
                        samples[name].append(took)
        noop = Stats.of("sh -c 'cat >/dev/null'", samples["noop"])
        direct = Stats.of("the hook run directly (bash -c, as Claude Code does)", samples["direct"])
        imported = Stats.of("imported (format: claude-code), one decide", samples["imported"])
        wrapped = Stats.of("behind the run-hook wrapper, one decide", samples["wrapped"])
    rows = [(noop, None, ""), (direct, noop, ""), (imported, direct, "close to direct"), (wrapped, direct, "(the way imports ran before)")]
    sys.stdout.write(table("An imported Claude Code hook (a Python Bash validator), per call", rows))
    sys.stdout.write(
        f"\nAdded by hookd over the hook's own run: imported {imported.median_us - direct.median_us:+.0f} µs, "
        f"behind the wrapper {wrapped.median_us - direct.median_us:+.0f} µs (medians).\n"
    )


if __name__ == "__main__":
    main()
