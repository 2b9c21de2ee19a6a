"""Readiness that means "files loaded": `hookd serve --ready-fd` and the welcome.

A starter without a service manager (a script, these tests) passes a pipe's
write end; the daemon writes READY=1 there once its global hook files are
loaded and the socket is served, then closes it. End of file first means the
daemon exited without becoming ready.
"""

from __future__ import annotations

import json
import os
import subprocess

from ..conftest import HOOKD, READY_TIMEOUT, Env, wait_for_socket, wait_ready_fd

POINT = "tool.approval.pre"


def deny(name: str) -> str:
    answer = json.dumps({"decision": "deny", "reason": name})
    return (
        f"  - {{name: {name}, point: {POINT}, type: decision, command: /bin/sh, enabled: true,\n"
        f"     args: ['-c', {json.dumps('cat >/dev/null; echo ' + repr(answer))}]}}\n"
    )


def start(env: Env, *extra: str) -> tuple[subprocess.Popen[bytes], int]:
    read_end, write_end = os.pipe()
    log = open(env.root / "daemon.log", "ab")  # noqa: SIM115 - handed to the child
    try:
        proc = subprocess.Popen(
            [*HOOKD, "serve", "--ready-fd", str(write_end), *extra], env=env.env, stdout=log, stderr=log, pass_fds=(write_end,)
        )
    finally:
        os.close(write_end)
        log.close()
    return proc, read_end


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        proc.wait(READY_TIMEOUT)


def test_ready_comes_after_the_global_files_are_loaded(env: Env) -> None:
    path = env.write_global_hooks("hooks:\n" + deny("first"))
    proc, read_end = start(env)
    try:
        lines = wait_ready_fd(read_end, proc)
        # Broken at once: had READY come before the load, the daemon would have read this
        # version first, found no accepted one, and had no hook in force.
        tmp = path.with_suffix(".tmp")
        tmp.write_text("hooks:\n  - {name: broken, point: tool.approval.pre, type: decison, command: x, enabled: true}\n")
        tmp.replace(path)
        from hookd_client import Client

        with Client(env.socket, timeout=30) as c:
            assert [h.name for h in c.list_hooks().hooks] == ["first"]
            assert c.decide(POINT, {"toolName": "bash"}).reason == "first"
            assert c.status().pid == proc.pid
        assert f"MAINPID={proc.pid}" in lines.splitlines()
        assert any(line.startswith("STATUS=") for line in lines.splitlines())
    finally:
        stop(proc)


def test_the_ready_fd_is_closed_once_ready(env: Env) -> None:
    proc, read_end = start(env, "--no-user-hooks")
    keep = os.dup(read_end)
    try:
        wait_ready_fd(read_end, proc)
        # Nobody (no hook, no plugin host) holds the write end: the reader sees end of file.
        os.set_blocking(keep, True)
        assert os.read(keep, 100) == b""
    finally:
        os.close(keep)
        stop(proc)


def test_end_of_file_says_the_daemon_exited_before_it_was_ready(env: Env) -> None:
    first, first_fd = start(env, "--no-user-hooks")
    try:
        wait_ready_fd(first_fd, first)
        second, second_fd = start(env, "--no-user-hooks")  # same socket and state: it must not start
        try:
            wait_ready_fd(second_fd, second)
        except RuntimeError as exc:
            assert "exited" in str(exc) and "before it was ready" in str(exc)
        else:
            raise AssertionError("a second daemon on the same socket signalled ready")
        assert second.wait(READY_TIMEOUT) != 0
    finally:
        stop(first)


def test_a_ready_fd_that_is_not_open_is_refused(env: Env) -> None:
    r = subprocess.run([*HOOKD, "serve", "--ready-fd", "97"], env=env.env, capture_output=True, text=True, timeout=READY_TIMEOUT)
    assert r.returncode == 2
    assert "--ready-fd 97 is not an open file descriptor" in r.stderr
    assert not os.path.exists(env.socket)


def test_a_welcome_means_ready_for_starters_that_only_know_the_socket(env: Env) -> None:
    env.write_global_hooks("hooks:\n" + deny("only"))
    log = open(env.root / "plain.log", "wb")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen([*HOOKD, "serve"], env=env.env, stdout=log, stderr=log)
    log.close()
    try:
        wait_for_socket(env.socket, proc)
        from hookd_client import Client

        with Client(env.socket, timeout=30) as c:
            assert [h.name for h in c.list_hooks().hooks] == ["only"]
    finally:
        stop(proc)
