"""One daemon per state directory: a second one exits with a message naming the holder's pid."""

from __future__ import annotations

import os
import subprocess

from hookd.edge.service import EXIT_STATE_LOCKED
from hookd.edge.statelock import holder, is_held

from ..conftest import HOOKD, Env


def test_a_second_daemon_on_the_same_state_directory_names_the_holder_and_exits(env: Env, daemon) -> None:  # type: ignore[no-untyped-def]
    state = env.state / "hookd"
    with daemon.client() as c:  # answered only once the daemon holds its state directory
        assert c.status().pid == daemon.proc.pid
    assert holder(str(state)) == daemon.proc.pid and is_held(str(state))
    assert (state / "daemon.lock").read_text() == f"{daemon.proc.pid}\n"
    # Another socket, the same state directory: it must not start and share the journal.
    other = dict(env.env, HOOKD_SOCKET=str(env.root / "run" / "other.sock"))
    second = subprocess.run([*HOOKD, "serve"], env=other, capture_output=True, text=True, timeout=60)
    assert second.returncode == EXIT_STATE_LOCKED
    assert f"pid {daemon.proc.pid}" in second.stderr and str(state) in second.stderr
    assert not os.path.exists(other["HOOKD_SOCKET"])
    # The first daemon's seqs are its own: nothing was written by the second one.
    with daemon.client() as c:
        c.emit("custom.one", {})
        assert c.status().events >= 2
    assert daemon.stop() == 0
    assert not is_held(str(state))


def test_after_the_holder_is_killed_a_new_daemon_starts(env: Env, daemon_factory) -> None:  # type: ignore[no-untyped-def]
    first = daemon_factory()
    with first.client() as c:  # answered only once the daemon holds its state directory
        assert c.status().pid == first.proc.pid
    first.kill()  # SIGKILL: the kernel drops the lock; the file with its stale pid stays
    assert holder(str(env.state / "hookd")) == first.proc.pid
    second = daemon_factory()
    with second.client() as c:
        assert c.status().pid == second.proc.pid
    assert holder(str(env.state / "hookd")) == second.proc.pid


def test_daemons_with_their_own_state_directories_run_side_by_side(env: Env, daemon, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ..conftest import DaemonProcess, make_env

    other_env = make_env(tmp_path / "other")
    other = DaemonProcess(other_env).start()
    try:
        with other.client() as c:
            assert c.status().pid == other.proc.pid
    finally:
        other.kill()
