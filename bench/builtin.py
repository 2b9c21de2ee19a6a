"""Row 10: decide through hookd's built-in guards (`builtin: default`) vs decide with no hook.

Two daemons side by side, each in its own sandbox, measured in alternating blocks on one
connection each (as row 1 measures its cases):
  - ``no hooks``: no hook file at all, the baseline of the same run;
  - ``builtin: default``: one global hook running all five guard packs in the daemon.
Each is asked three ways: the same benign shell command every call (the packs' parse cache
answers), a different benign command every call (every call parsed: the cost of a real agent's
stream of commands) and a dangerous one (`git reset --hard`, denied, its rule named).
Per case: the median round trip, and the ratio and the difference to the baseline's same kind of
call; beside it, what the packs alone take for that kind of call (hookd.guards.check in this
process), so that the difference splits into the packs' own work and the daemon's (the hook's
result on the call's event and in stats, the answer on the wire). Goals: within 1.3x of a decide
with no hooks, and at most tens of microseconds added.
    python bench/builtin.py [--n 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


def payload(command: str) -> dict[str, Any]:
    return {"toolName": "execute_command", "args": {"command": command, "cwd": "/tmp/project"}, "cwd": "/tmp/project"}


def varied(prefix: str) -> Callable[[], dict[str, Any]]:
    """A different benign command every call, as an agent sends them: none is in the packs' cache."""
    counter = itertools.count()
    return lambda: payload(f"grep -rn '{prefix}{next(counter)}' src/ | head -20")


@contextlib.contextmanager
def case_daemon(hooks: str | None) -> Iterator[tuple[Client, int]]:
    with sandbox() as env, contextlib.ExitStack() as stack:
        if hooks is not None:
            Path(env["XDG_CONFIG_HOME"], "hookd").mkdir()
            Path(env["XDG_CONFIG_HOME"], "hookd", "hooks.yaml").write_text(hooks)
        proc = stack.enter_context(daemon(env))
        client = stack.enter_context(Client(env["HOOKD_SOCKET"]))
        yield client, proc.pid


def calls(client: Client, make: Callable[[], dict[str, Any]], expect: str | None) -> Callable[[], None]:
    def call() -> None:
        outcome = client.decide(POINT, make(), session="s1")
        if outcome.decision != expect:  # a bench of a guard that does not guard measures nothing
            raise SystemExit(f"expected {expect}, got {outcome.decision} ({outcome.reason})")

    return call


def packs_alone(make: Callable[[], dict[str, Any]], n: int) -> float:
    """Median µs of hookd.guards.check on the calls ``make`` gives, in this process, as the runner calls it."""
    from hookd.guards.check import check
    from hookd.guards.model import DEFAULT, Context
    from hookd.guards.options import policy as make_policy

    policy = make_policy(None)
    ctx = Context("/tmp/project", None, os.path.expanduser("~"))
    clock = time.perf_counter_ns
    samples = []
    for _ in range(n):
        args = make()["args"]
        t0 = clock()
        check(DEFAULT, "execute_command", args, ctx, policy)
        samples.append(clock() - t0)
    return statistics.median(samples) / 1000


def one_round(n: int, blocks: int) -> dict[str, float]:
    """Median µs of each case in one round, and of the packs alone for each kind of call."""
    same = lambda: payload(BENIGN)  # noqa: E731
    bad = lambda: payload(DANGEROUS)  # noqa: E731
    with case_daemon(None) as (bare, bare_pid), case_daemon(HOOKS) as (guarded, guarded_pid):
        cases = [
            Case("base same", calls(bare, same, None), bare_pid),
            Case("base varied", calls(bare, varied("a"), None), bare_pid),
            Case("base dangerous", calls(bare, bad, None), bare_pid),
            Case("builtin same", calls(guarded, same, None), guarded_pid),
            Case("builtin varied", calls(guarded, varied("b"), None), guarded_pid),
            Case("builtin dangerous", calls(guarded, bad, "deny"), guarded_pid),
        ]
        for case in cases:  # warm-up
            for _ in range(max(1, n // 10)):
                case.call()
        for b in range(blocks):
            turn = b % len(cases)
            for case in cases[turn:] + cases[:turn]:
                case.block(n // blocks)
    out = {c.name: statistics.median(c.wall_ns) / 1000 for c in cases}
    # Other commands than the daemons were sent (another prefix): none is in this process's cache either.
    out.update({"packs same": packs_alone(same, n), "packs varied": packs_alone(varied("c"), n), "packs dangerous": packs_alone(bad, n)})
    return out


def row(n: int, rounds: int, blocks: int = 10) -> str:
    results = [one_round(n, blocks) for _ in range(rounds)]

    def med(name: str) -> float:
        return statistics.median(r[name] for r in results)

    lines = [
        "## Row 10: decide through the built-in guards (`builtin: default`) vs decide with no hooks",
        "",
        f"{rounds} rounds x {n} calls per case, unpinned; each case against the no-hooks daemon's same kind of call in the same round.",
        "",
        "| call | no hooks median µs | builtin median µs | ratio (median; range) | added µs | of which the packs alone µs | goal |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    titles = {
        "same": f"benign, the same command every call (`{BENIGN}`)",
        "varied": "benign, a different command every call (every call parsed)",
        "dangerous": f"dangerous (`{DANGEROUS}`: denied, git.reset-hard)",
    }
    verdicts = []
    for kind, title in titles.items():
        base, built = f"base {kind}", f"builtin {kind}"
        ratios = [r[built] / r[base] for r in results]
        ratio = statistics.median(ratios)
        added = med(built) - med(base)
        alone = med(f"packs {kind}")
        lines.append(
            f"| {title} | {med(base):.1f} | {med(built):.1f} | {ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) | "
            f"{added:+.1f} | {alone:.1f} | <= {GOAL_RATIO}x |"
        )
        verdict = "met" if ratio <= GOAL_RATIO else "MISSED"
        verdicts.append(f"{kind}: {ratio:.2f}x ({verdict}), {added:+.1f} µs, of which {alone:.1f} µs the packs' own work")
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
