"""Row 10: decide through hookd's built-in guards (`builtin: default`) vs decide with no hook.

Two daemons side by side, each in its own sandbox, measured in alternating blocks on one
connection each (as row 1 measures its cases):
  - ``no hooks``: no hook file at all, the baseline of the same run;
  - ``builtin: default``: one global hook running all five guard packs in the daemon.
Each is asked three ways: the same benign shell command every call (the packs' parse cache
answers), a different benign command every call (every call parsed: the cost of a real agent's
stream of commands) and a dangerous one (`git reset --hard`, denied, its rule named).
Per case: the median round trip, the daemon's CPU per call (from /proc), and the ratio and the
difference to the baseline's same kind of call. Goals: within 1.3x of a decide with no hooks,
and at most tens of microseconds added.
    python bench/builtin.py [--n 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hookd_client import Client

from bench.common import daemon, sandbox
from bench.core import Case

POINT = "tool.approval.pre"
GOAL_RATIO = 1.3
HOOKS = """hooks:
  - name: guards
    point: tool.approval.pre
    builtin: default
    enabled: true
"""
BENIGN = "ls -la src && git status --short"
DANGEROUS = "git reset --hard HEAD~1"


def payload(command: str) -> dict[str, object]:
    return {"toolName": "execute_command", "args": {"command": command, "cwd": "/tmp/project"}, "cwd": "/tmp/project"}


def varied() -> Callable[[], dict[str, object]]:
    """A different benign command every call, as an agent sends them: none is in the packs' cache."""
    counter = itertools.count()
    return lambda: payload(f"grep -rn 'item{next(counter)}' src/ | head -20")


@contextlib.contextmanager
def case_daemon(hooks: str | None) -> Iterator[tuple[Client, int]]:
    with sandbox() as env, contextlib.ExitStack() as stack:
        if hooks is not None:
            Path(env["XDG_CONFIG_HOME"], "hookd").mkdir()
            Path(env["XDG_CONFIG_HOME"], "hookd", "hooks.yaml").write_text(hooks)
        proc = stack.enter_context(daemon(env))
        client = stack.enter_context(Client(env["HOOKD_SOCKET"]))
        yield client, proc.pid


def calls(client: Client, make: Callable[[], dict[str, object]], expect: str | None) -> Callable[[], None]:
    def call() -> None:
        outcome = client.decide(POINT, make(), session="s1")
        if outcome.decision != expect:  # a bench of a guard that does not guard measures nothing
            raise SystemExit(f"expected {expect}, got {outcome.decision} ({outcome.reason})")

    return call


def one_round(n: int, blocks: int) -> dict[str, tuple[float, float]]:
    with case_daemon(None) as (bare, bare_pid), case_daemon(HOOKS) as (guarded, guarded_pid):
        same = lambda: payload(BENIGN)  # noqa: E731
        bad = lambda: payload(DANGEROUS)  # noqa: E731
        cases = [
            Case("base same", calls(bare, same, None), bare_pid),
            Case("base varied", calls(bare, varied(), None), bare_pid),
            Case("base dangerous", calls(bare, bad, None), bare_pid),
            Case("builtin same", calls(guarded, same, None), guarded_pid),
            Case("builtin varied", calls(guarded, varied(), None), guarded_pid),
            Case("builtin dangerous", calls(guarded, bad, "deny"), guarded_pid),
        ]
        for case in cases:  # warm-up
            for _ in range(max(1, n // 10)):
                case.call()
        for b in range(blocks):
            turn = b % len(cases)
            for case in cases[turn:] + cases[:turn]:
                case.block(n // blocks)
        count = (n // blocks) * blocks
        return {c.name: (statistics.median(c.wall_ns) / 1000, c.server_s / count * 1e6) for c in cases}


def row(n: int, rounds: int, blocks: int = 10) -> str:
    results = [one_round(n, blocks) for _ in range(rounds)]

    def med(name: str, i: int) -> float:
        return statistics.median(r[name][i] for r in results)

    lines = [
        "## Row 10: decide through the built-in guards (`builtin: default`) vs decide with no hooks",
        "",
        f"{rounds} rounds x {n} calls per case, unpinned; each case against the no-hooks daemon's same kind of call in the same round.",
        "",
        "| call | no hooks median µs | builtin median µs | ratio (median; range) | added µs (wall) "
        "| daemon CPU µs/call no hooks | builtin | added µs (CPU) | goal |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    titles = {
        "same": f"benign, the same command every call (`{BENIGN}`)",
        "varied": "benign, a different command every call (every call parsed)",
        "dangerous": f"dangerous (`{DANGEROUS}`: denied, git.reset-hard)",
    }
    verdicts = []
    for kind, title in titles.items():
        base, built = f"base {kind}", f"builtin {kind}"
        ratios = [r[built][0] / r[base][0] for r in results]
        ratio = statistics.median(ratios)
        wall = med(built, 0) - med(base, 0)
        cpu = med(built, 1) - med(base, 1)
        lines.append(
            f"| {title} | {med(base, 0):.1f} | {med(built, 0):.1f} | {ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | "
            f"{wall:+.1f} | {med(base, 1):.1f} | {med(built, 1):.1f} | {cpu:+.1f} | <= {GOAL_RATIO}x |"
        )
        verdicts.append(
            f"{kind}: {ratio:.2f}x ({'met' if ratio <= GOAL_RATIO else 'MISSED'}), {wall:+.1f} µs wall, {cpu:+.1f} µs daemon CPU"
        )
    return "\n".join(lines) + "\n\n" + "; ".join(verdicts) + ".\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=5000, help="round trips per case per round (default 5000)")
    ap.add_argument("--rounds", type=int, default=5, help="fresh pairs of daemons (default 5)")
    args = ap.parse_args()
    print(row(args.n, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
