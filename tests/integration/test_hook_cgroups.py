"""Hook runs in cgroups: where hookd may make them (a delegated cgroup, as systemd gives a unit with
``Delegate=yes``), even a descendant that drops its run mark and leaves the hook's ancestry dies with
the run, and nothing of hookd's is left in the cgroup tree once it stops or is killed.

The daemon is started inside a cgroup the test makes (and removes) on the machine's cgroup2
hierarchy, as the service manager would. Skipped where that hierarchy is not writable.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hookd_client import Client

from hookd.runners.cgroups import own_cgroup

from ..conftest import HOOKD, DaemonProcess, Env, wait_for_socket, write_script
from ..processes import alive, gone_soon

POINT = "tool.approval.pre"

# The hook's grandchild starts a process with an empty environment (no run mark) in a session of
# its own, and exits: that process is re-parented away from the hook. It records its pid.
ESCAPER = """
import os, subprocess, sys, time
out = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    p = subprocess.Popen(["/bin/sh", "-c", "echo $$ > " + out + ".tmp && mv " + out + ".tmp " + out + " && exec sleep 300"],
                         env={}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os._exit(0)
time.sleep(300)
"""


def _delegated_parent() -> Path | None:
    found = own_cgroup()
    if found is None:
        return None
    here = Path(found[0]) / found[1].lstrip("/")
    probe = here / f"hookd-test-probe-{uuid.uuid4().hex[:8]}"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError:
        return None
    return here


@pytest.fixture
def delegated() -> Iterator[Path]:
    parent = _delegated_parent()
    if parent is None:
        pytest.skip("no writable cgroup2 hierarchy here")
    group = parent / f"hookd-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    yield group
    # Whatever is left (the daemon's sentinel finishing its sweep, say), killed and removed.
    (group / "cgroup.kill").write_text("1")

    def removed() -> bool:
        for child in sorted(group.glob("**/"), key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                child.rmdir()
        return not group.exists()

    assert_eventually(removed, f"{group} could not be removed")


def start_in(group: Path, env: Env) -> DaemonProcess:
    """`hookd serve` started inside ``group``, as a service manager starts a unit in its cgroup."""
    d = DaemonProcess(env)
    log = open(d.log_path, "wb")  # noqa: SIM115 - handed to the child
    enter = f'echo $$ > {group / "cgroup.procs"} && exec "$@"'
    d.proc = subprocess.Popen(["/bin/sh", "-c", enter, "sh", *HOOKD, "serve"], env=env.env, stdout=log, stderr=log, cwd=env.root)
    log.close()
    wait_for_socket(env.socket, d.proc)
    return d


def pid_in(path: Path) -> int:
    def ready() -> bool:
        return path.exists()

    assert_eventually(ready, f"{path} never appeared")
    return int(path.read_text())


def environ_of(pid: int) -> bytes:
    """A process's environment; nothing once it is gone (it may die between any two looks, and
    here it is meant to)."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except (ProcessLookupError, FileNotFoundError):
        return b""


def assert_eventually(check, what: str, within: float = 30) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + within
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_an_unmarked_escaped_descendant_dies_with_its_run(env: Env, delegated: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "escaper.py", ESCAPER)
    d = start_in(delegated, env)
    try:
        out = tmp_path / "escaped.pid"
        spec = {"name": "slow", "point": POINT, "type": "decision", "command": str(script), "args": [str(out)], "timeout": 2}
        with Client(env.socket, timeout=60) as c:
            c.attach_session("s1", [spec])
            outcome = c.decide(POINT, {}, session="s1")
            assert [e.code for e in outcome.errors] == ["timeout"], outcome
            escaped = pid_in(out)
            environ = environ_of(escaped)
            assert b"HOOKD_RUN" not in environ  # marks and ancestry alone could not find it
            assert gone_soon(escaped, 15), "the unmarked descendant outlived its run's timeout"
            assert_eventually(lambda: not list(delegated.glob("hookd-*/run-*")), "the run's cgroup was never removed")
        assert d.stop() == 0
        # Stopped: nothing of hookd's is left in the cgroup tree but the daemon's own (now empty) group.
        assert_eventually(lambda: not list(delegated.glob("hookd-*")), "hookd's cgroup outlived it")
    finally:
        d.kill()


def test_a_sigkilled_daemon_leaves_no_hook_process_and_no_cgroup(env: Env, delegated: Path, tmp_path: Path) -> None:
    script = write_script(tmp_path / "escaper.py", ESCAPER)
    d = start_in(delegated, env)
    out = tmp_path / "escaped.pid"
    spec = {"name": "slow", "point": POINT, "type": "decision", "command": str(script), "args": [str(out)], "timeout": 300}
    try:
        c = Client(env.socket, timeout=60)
        c.attach_session("s1", [spec])
        c.emit("custom.nothing", {})  # connected; now a decide that never ends, then the kill
        proc = subprocess.Popen(
            [*HOOKD, "decide", POINT, "--session", "s1"], env=env.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        escaped = pid_in(out)
        assert alive(escaped)
        d.signal(signal.SIGKILL)
        assert d.proc is not None
        d.proc.wait(30)
        assert gone_soon(escaped, 20), "the unmarked descendant outlived the daemon"
        assert_eventually(lambda: not list(delegated.glob("hookd-*")), "the dead daemon's cgroup was never removed")
        proc.wait(30)
        c.close()
    finally:
        d.kill()
