"""Hook process trees are contained: nothing a hook starts outlives its timeout, its worker's
stop or a SIGKILL of the daemon, and a hook that floods its output costs bounded memory."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

from hookd_client import Client

from ..conftest import Env, write_script
from ..processes import alive, gone_soon

POINT = "tool.approval.pre"

# Starts a grandchild that leaves the hook's process group and session (setsid), records both
# pids, then outlives any timeout. A persistent worker (argv[2] == "worker") answers instead.
ESCAPER = """
import json, os, subprocess, sys, time
out = sys.argv[1]
child = subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(300)"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
with open(out + ".tmp", "w") as f:
    f.write(json.dumps([os.getpid(), child.pid]))
os.rename(out + ".tmp", out)
if len(sys.argv) > 2:
    for line in sys.stdin:
        print(json.dumps({"id": json.loads(line)["id"], "decision": None}), flush=True)
else:
    time.sleep(300)
"""


def pids_in(path: Path, within: float = 30) -> list[int]:
    deadline = time.monotonic() + within
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)
    return json.loads(path.read_text())


def escaper(tmp_path: Path, name: str, timeout: float, worker: bool = False) -> tuple[dict[str, Any], Path]:
    script = write_script(tmp_path / "escaper.py", ESCAPER)
    out = tmp_path / f"{name}.pids"
    spec: dict[str, Any] = {"name": name, "point": POINT, "type": "decision", "command": str(script), "timeout": timeout}
    spec["args"] = [str(out), "worker"] if worker else [str(out)]
    if worker:
        spec["mode"] = "persistent"
    return spec, out


def test_a_setsid_grandchild_does_not_survive_the_timeout(env: Env, daemon, tmp_path: Path) -> None:
    spec, out = escaper(tmp_path, "slow", timeout=2)
    with daemon.client() as c:
        c.attach_session("s1", [spec])
        outcome = c.decide(POINT, {}, session="s1")
        assert [e.code for e in outcome.errors] == ["timeout"]
        leader, grandchild = pids_in(out)
        for pid in (leader, grandchild):
            assert gone_soon(pid, 15), f"{pid} outlived the hook's timeout"


def test_a_stopped_worker_takes_its_setsid_grandchild_along(env: Env, daemon, tmp_path: Path) -> None:
    spec, out = escaper(tmp_path, "warm", timeout=30, worker=True)
    with daemon.client() as c:
        c.attach_session("s1", [spec])
        assert c.decide(POINT, {}, session="s1").errors == []
        worker, grandchild = pids_in(out)
        assert alive(grandchild)
        c.dispose_session("s1")
        for pid in (worker, grandchild):
            assert gone_soon(pid, 15), f"{pid} outlived its worker's stop"


def test_nothing_a_hook_started_survives_a_sigkill_of_the_daemon(env: Env, daemon, tmp_path: Path) -> None:
    spawned, spawned_out = escaper(tmp_path, "slow", timeout=120)
    warm, warm_out = escaper(tmp_path, "warm", timeout=30, worker=True)
    with daemon.client() as c:
        c.attach_session("w", [warm])
        assert c.decide(POINT, {}, session="w").errors == []
        c.attach_session("s", [spawned])

        def in_flight() -> None:
            try:
                with Client(daemon.socket) as other:
                    other.decide(POINT, {}, session="s")
            except Exception:  # the daemon is killed under it
                pass

        call = threading.Thread(target=in_flight, daemon=True)
        call.start()
        pids = pids_in(spawned_out) + pids_in(warm_out)
        assert all(alive(p) for p in pids)
        daemon.signal(signal.SIGKILL)
        daemon.proc.wait(30)
    for pid in pids:
        assert gone_soon(pid, 20), f"{pid} outlived the daemon"
    call.join(30)


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_hundred_megabytes_of_output_is_capped_named_and_costs_bounded_memory(env: Env, daemon, tmp_path: Path) -> None:
    flood_out = {"name": "flood-out", "point": POINT, "type": "decision", "command": "/bin/sh", "timeout": 120}
    flood_out["args"] = ["-c", "cat >/dev/null; head -c 100000000 /dev/zero"]
    flood_err = {"name": "flood-err", "point": POINT, "type": "decision", "command": "/bin/sh", "timeout": 120}
    flood_err["args"] = [
        "-c",
        'cat >/dev/null; head -c 100000000 /dev/zero >&2; echo \'{"decision": "deny", "reason": "after the flood"}\'',
    ]
    warm = write_script(
        tmp_path / "warm_flood.py",
        """
        import json, sys
        for line in sys.stdin:
            sys.stdout.write("x" * 100_000_000); sys.stdout.flush()
        """,
    )
    flood_line = {"name": "flood-line", "point": "custom.flood", "type": "decision", "command": str(warm), "mode": "persistent"}
    with daemon.client() as c:
        before = _peak_rss_kib(daemon.proc.pid)
        c.attach_session("out", [flood_out])
        c.attach_session("err", [flood_err])
        c.attach_session("line", [flood_line])
        stdout_flood = c.decide(POINT, {}, session="out")
        assert [e.code for e in stdout_flood.errors] == ["error"], stdout_flood
        assert "stdout exceeded the cap of 1048576 bytes" in stdout_flood.errors[0].message
        stderr_flood = c.decide(POINT, {}, session="err")
        assert stderr_flood.decision == "deny" and stderr_flood.reason == "after the flood", stderr_flood
        line_flood = c.decide("custom.flood", {}, session="line")
        assert [e.code for e in line_flood.errors] == ["error"], line_flood
        assert "over the cap of 1048576 bytes" in line_flood.errors[0].message
        grew = _peak_rss_kib(daemon.proc.pid) - before
    # 300 MB went through; the daemon's peak grew by a few caps at most.
    print(f"daemon peak RSS before {before} KiB, growth {grew} KiB after 300 MB of hook output")
    assert grew < 48 * 1024, f"the daemon's peak RSS grew by {grew} KiB"
