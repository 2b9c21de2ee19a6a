"""Bad socket paths and bad `hookd serve` options: said plainly, with the fix, no traceback."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from hookd_client import BadSocketPath, Client, HookdError

from ..conftest import HOOKD


def _long_path(env) -> str:  # type: ignore[no-untyped-def]
    path = str(env.root / "run" / ("d" * 60) / ("s" * 60) / "hookd.sock")
    assert len(os.fsencode(path)) > 107
    return path


def _cases(env) -> dict[str, tuple[str, str]]:  # type: ignore[no-untyped-def]
    directory = env.root / "run" / "adir"
    directory.mkdir()
    regular = env.root / "run" / "afile"
    regular.write_text("not a socket\n")
    return {
        "too long": (_long_path(env), "at most 107"),
        "a directory": (str(directory), f"name the socket file, not its directory: e.g. {directory}/hookd.sock"),
        "a regular file": (str(regular), "it is a regular file, not a socket"),
        "under a regular file": (str(regular / "hookd.sock"), "not a directory"),
    }


def test_cli_says_what_is_wrong_with_the_socket_path_and_exits_3(env):
    for what, (path, said) in _cases(env).items():
        for args in (("status",), ("status", "--json"), ("hooks",), ("decide", "tool.approval.pre"), ("tail", "--no-follow")):
            r = env.hookd(*args, "--socket", path)
            assert r.returncode == 3, (what, args, r.stderr)
            assert said in r.stderr and "Traceback" not in r.stderr, (what, r.stderr)
            assert r.stderr.count("\n") == 1 and r.stdout == ""
        env.env["HOOKD_SOCKET"] = path
        r = env.hookd("status")
        assert r.returncode == 3 and said in r.stderr and "$HOOKD_SOCKET" in r.stderr, r.stderr


def test_client_raises_a_hookd_error_naming_the_problem(env):
    for what, (path, said) in _cases(env).items():
        with pytest.raises(BadSocketPath) as info:
            Client(path)
        assert isinstance(info.value, HookdError) and not isinstance(info.value, OSError)
        assert info.value.code == "bad_socket_path" and said in info.value.message, what
        with pytest.raises(BadSocketPath):
            Client(path, connect=False).subscribe(since=0).open()


def test_serve_refuses_a_socket_path_that_cannot_be_one(env):
    for what, (path, said) in _cases(env).items():
        r = env.hookd("serve", "--socket", path, timeout=60)
        assert r.returncode == 2, (what, r.stderr)
        assert "hookd serve: error: --socket:" in r.stderr and said in r.stderr and "Traceback" not in r.stderr


BAD_OPTIONS = [
    (("--hook-timeout", "-5"), "argument --hook-timeout: must be more than 0 seconds, got -5"),
    (("--hook-timeout", "0"), "argument --hook-timeout: must be more than 0 seconds"),
    (("--hook-timeout", "nan"), "argument --hook-timeout: expected a finite number of seconds"),
    (("--hook-timeout", "soon"), "argument --hook-timeout: expected a number of seconds, got 'soon'"),
    (("--max-frame", "10"), "argument --max-frame: must be at least 4096 bytes, got 10"),
    (("--max-frame", str(1 << 31)), "argument --max-frame: must be at most 1073741824 bytes"),
    (("--drain", "-1"), "argument --drain: must be 0 or more seconds"),
    (("--session-grace", "-1"), "argument --session-grace: must be 0 or more seconds"),
    (("--max-sessions", "0"), "argument --max-sessions: must be at least 1"),
    (("--max-hooks-per-session", "-2"), "argument --max-hooks-per-session: must be at least 1"),
    (("--history", "0"), "argument --history: must be at least 1"),
    (("--history-bytes", "1000"), "argument --history-bytes: must be at least 1048576 bytes"),
    (("--journal-max-bytes", "10"), "argument --journal-max-bytes: must be at least 1024 bytes"),
    (("--journal-keep", "-1"), "argument --journal-keep: must be at least 0"),
    (("--hello-timeout", "0"), "argument --hello-timeout: must be more than 0 seconds"),
    (("--frame-timeout", "-3"), "argument --frame-timeout: must be more than 0 seconds"),
    (("--idle-timeout", "inf"), "argument --idle-timeout: expected a finite number of seconds"),
    (("--max-connections", "0"), "argument --max-connections: must be at least 1"),
    (("--max-write-buffer", "100"), "argument --max-write-buffer: must be at least 65536 bytes"),
    (("--max-pending-bytes", "8192", "--max-frame", "65536"), "--max-pending-bytes (8192) must be at least --max-frame (65536)"),
    (("--log-level", "loud"), "argument --log-level: invalid choice: 'loud'"),
]


@pytest.mark.parametrize(("args", "said"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_serve_validates_every_option(env, args, said):
    r = env.hookd("serve", *args, timeout=60)
    assert r.returncode == 2, r.stderr
    assert said in r.stderr and r.stderr.startswith("usage: hookd serve") and "Traceback" not in r.stderr
    assert not os.path.exists(env.socket)  # nothing started


def test_serve_log_file_keeps_the_foreground_log_as_json_lines(env, daemon_factory):
    log = env.root / "logs" / "hookd.log"
    d = daemon_factory("--log-file", str(log))
    with Client(d.socket) as c:
        c.emit("custom.logged", {})
    assert d.stop() == 0
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    events = [e["event"] for e in entries]
    assert "hookd listening" in events and "hookd stopped" in events
    assert all("timestamp" in e and "level" in e for e in entries)
    assert "hookd listening" in d.log()  # stderr still gets the log too

    r = env.hookd("serve", "--log-file", str(env.root / "logs"), timeout=60)
    assert r.returncode == 2 and "--log-file" in r.stderr and "is a directory" in r.stderr


def test_a_valid_set_of_options_serves(env, daemon_factory):
    d = daemon_factory("--max-frame", "4096", "--max-pending-bytes", "4096", "--hook-timeout", "0.5", "--drain", "0")
    with Client(d.socket) as c:
        assert c.welcome.limits.max_frame == 4096
        assert c.status().pid == d.proc.pid


def test_a_daemon_on_a_valid_socket_still_answers_after_bad_paths(env, daemon):
    subprocess.run([*HOOKD, "status", "--socket", str(env.root)], env=env.env, capture_output=True, timeout=30)
    r = env.hookd("status", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["pid"] == daemon.proc.pid
