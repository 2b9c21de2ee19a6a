"""The hook sentinel: kills what a daemon's hooks left behind once the daemon is gone.

Started by the daemon (hookd.runners.contain) with a pipe on stdin and the
daemon's token as its argument (and the daemon's hook cgroup, where it has
one). It waits for EOF on stdin, which comes when the daemon exits for
whatever reason (SIGKILL included), then kills every process in that cgroup
and every process whose environment carries ``HOOKD_RUN=<token>/...``, and
exits.
Deliberately tiny: no logging set-up, no imports beyond the standard library.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

from hookd.runners.procs import kill_tree, members


def sweep(token: str) -> int:
    killed: set[int] = set()
    for _ in range(10):
        pids = members(0, f"{token}/", prefix=True) - {os.getpid()}
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed |= pids
        time.sleep(0.05)
    return len(killed)


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or not argv[0]:
        sys.stderr.write("usage: python -m hookd.runners.sentinel TOKEN [CGROUP]\n")
        return 2
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)
    while True:
        try:
            if not os.read(0, 4096):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    if len(argv) == 2:
        kill_tree(argv[1])
    sweep(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
