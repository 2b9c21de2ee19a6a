"""A hook process enters its run's cgroup itself, between fork and exec: nothing it starts, however
fast, can be outside the cgroup. A file stands in for the run's ``cgroup.procs`` (writing ``0``
there moves the writer), so the write can be seen without a delegated cgroup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookd.runners import spawn
from hookd.runners.contain import Containment


@pytest.mark.skipif(not os.path.exists("/bin/sh"), reason="needs /bin/sh")
def test_the_child_writes_its_entry_before_the_hook_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    procs = tmp_path / "cgroup.procs"
    procs.write_bytes(b"")
    containment = Containment(sentinel=False)
    monkeypatch.setattr(containment.cgroups, "procs_fd", lambda tag: os.open(procs, os.O_WRONLY | os.O_CLOEXEC))
    seen = tmp_path / "seen"
    with containment.entering("t/1") as enter:
        assert enter is not None
        # The hook reads what was written when it starts: the entry was made before its exec.
        child, stdin, out, err = spawn.start(["/bin/sh", "-c", f"cat {procs} > {seen}"], dict(os.environ), str(tmp_path), enter)
    for fd in (stdin, out, err):
        os.close(fd)
    assert child.popen.wait(timeout=30) == 0
    assert seen.read_bytes() == b"0"


def test_without_cgroups_nothing_is_added_to_the_spawn() -> None:
    containment = Containment(sentinel=False)
    containment.cgroups.root = None
    containment.cgroups._opened = True
    containment.cgroups.why_not = "test"
    with containment.entering("t/1") as enter:
        assert enter is None


def test_an_entry_that_fails_never_stops_the_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    containment = Containment(sentinel=False)
    read_only = os.open(tmp_path, os.O_RDONLY)  # a write to it fails in the child
    monkeypatch.setattr(containment.cgroups, "procs_fd", lambda tag: os.dup(read_only))
    try:
        with containment.entering("t/1") as enter:
            child, stdin, out, err = spawn.start(["/bin/sh", "-c", "exit 7"], dict(os.environ), str(tmp_path), enter)
        for fd in (stdin, out, err):
            os.close(fd)
        assert child.popen.wait(timeout=30) == 7
    finally:
        os.close(read_only)
