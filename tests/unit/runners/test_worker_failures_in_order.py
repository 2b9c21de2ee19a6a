"""A worker's failures in a row are counted in the order they happened: a run killed for not answering
counts when it is killed, so a replacement that answers before the killed run is reaped leaves the worker
healthy (no failure shown for it). Real worker processes."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from hookd.runners.worker_process import WorkerLimits
from hookd.runners.workers import Worker, WorkerFailure

from ...conftest import write_script

# The first run leaves behind a process that holds its stdout open and that the kill of its group does
# not reach (its own session, no environment to be found by), so the killed run is reaped only when the
# daemon gives up on its pipes; the runs after it answer at once.
HANGS_ONCE = """
import json, os, sys, time
marker = sys.argv[1]
first = not os.path.exists(marker)
open(marker, "a").close()
if first:
    child = os.fork()
    if child == 0:
        os.setsid()
        os.execve("/bin/sleep", ["sleep", "30"], {})
    open(marker + ".holder", "w").write(str(child))
for line in sys.stdin:
    req = json.loads(line)
    if first:
        time.sleep(60)
    print(json.dumps({"id": req["id"], "pid": os.getpid()}), flush=True)
"""


def test_a_replacement_that_answers_before_the_killed_run_is_reaped_leaves_no_failure(tmp_path: Path) -> None:
    script = tmp_path / "hangs_once.py"
    write_script(script, HANGS_ONCE)
    marker = tmp_path / "started"

    async def main() -> None:
        limits = WorkerLimits(exit_grace=3.0)
        w = Worker("test", [sys.executable, str(script), str(marker)], limits=limits)
        try:
            try:
                await w.request({"n": 1}, 0.5)
                raise AssertionError("the first run answered")
            except WorkerFailure as exc:
                assert exc.code == "timeout"
            assert w.failures == 1  # counted as the run is killed, not when it is reaped
            killed = w.info().pid
            reply = await w.request({"n": 2}, 30)
            assert reply["pid"] != killed and w.failures == 0
            while len(w._runs) > 1:  # the killed run, reaped once its pipes are given up on
                await asyncio.sleep(0.05)
            assert w.failures == 0 and w.info().failures == 0, w.error
            assert (await w.request({"n": 3}, 30))["pid"] == reply["pid"]
        finally:
            await w.stop()
            holder = Path(f"{marker}.holder")
            if holder.exists():  # the process the kill could not reach, ended by the test that made it
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(holder.read_text()), signal.SIGKILL)

    asyncio.run(asyncio.wait_for(main(), 60))
