"""`hookd tail` on a terminal fits its width; `tail -f` follows across a daemon restart, as journalctl -f."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import queue
import re
import select
import struct
import subprocess
import termios
import threading

from hookd_client import Client

from hookd.cli import tailfmt

from ..conftest import HOOKD

HANG_GUARD = 30.0


def _reader(proc: subprocess.Popen[str]) -> queue.Queue[str]:
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    return lines


def _follow(env, *args: str) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    return subprocess.Popen([*HOOKD, "tail", "-f", *args], env=env.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_tail_follow_survives_a_daemon_restart_with_a_marker_and_no_duplicates(env, daemon_factory):
    first = daemon_factory()
    with Client(first.socket) as c:
        c.emit("custom.r", {"i": 0})
    proc = _follow(env, "--json", "--point", "custom.r", "-n", "5")
    lines = _reader(proc)
    try:
        got = [json.loads(lines.get(timeout=HANG_GUARD))]
        assert got[0]["payload"] == {"i": 0}
        with Client(first.socket) as c:
            c.emit("custom.r", {"i": 1})
        got.append(json.loads(lines.get(timeout=HANG_GUARD)))  # live from the first daemon
        assert first.stop() == 0
        second = daemon_factory()
        with Client(second.socket) as c:
            c.emit("custom.r", {"i": 2})
            c.emit("custom.r", {"i": 3})
        while len(got) < 5:
            got.append(json.loads(lines.get(timeout=HANG_GUARD)))
        assert proc.poll() is None  # still following
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=HANG_GUARD)
    marker = got[2]
    assert marker == {"type": "marker", "text": "daemon restarted", "after_seq": got[1]["seq"]}
    events = [g for g in got if g.get("type") == "event"]
    assert [e["payload"]["i"] for e in events] == [0, 1, 2, 3]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs))
    assert "waiting for it to come back" in err


def test_tail_follow_prints_the_marker_line_for_humans(env, daemon_factory):
    first = daemon_factory()
    proc = _follow(env, "--point", "custom.h", "-n", "0")
    lines = _reader(proc)
    try:
        # Subscribed once an event shows up; only then is the restart one it must follow.
        with Client(first.socket) as c:
            while True:
                c.emit("custom.h", {"before": True})
                try:
                    assert "before=true" in lines.get(timeout=0.5)
                    break
                except queue.Empty:
                    continue
        first.stop()
        second = daemon_factory()
        with Client(second.socket) as c:
            c.emit("custom.h", {"after": True})
        seen = [lines.get(timeout=HANG_GUARD) for _ in range(2)]
    finally:
        proc.terminate()
        proc.wait(HANG_GUARD)
    assert seen[0].strip() == "-- daemon restarted --"
    assert "after=true" in seen[1]


def _on_a_terminal(env, columns: int, *args: str) -> str:  # type: ignore[no-untyped-def]
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    run_env = {k: v for k, v in env.env.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.Popen([*HOOKD, "tail", "--no-follow", *args], env=run_env, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    out = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], HANG_GUARD)
            assert ready, out
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the other end closed: all read
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(HANG_GUARD) == 0
    finally:
        os.close(master)
    return out.decode().replace("\r\n", "\n")


def test_on_a_terminal_lines_fit_its_width_and_full_shows_them_whole(env, daemon, tmp_path):
    with Client(daemon.socket) as c:
        c.emit("custom.w", {"text": "中文" * 40 + "\x1b[31mred" + "x" * 200, "n": 1})
    for columns in (40, 80, 133):
        out = _on_a_terminal(env, columns, "--point", "custom.w")
        (line,) = out.splitlines()
        visible = re.sub(r"\x1b\[[0-9;]*m", "", line)
        assert tailfmt.cells(visible) <= columns and visible.endswith("…")
        assert line.count("\x1b[") == 2 * line.count(tailfmt.RESET)  # every colour closed
    full = _on_a_terminal(env, 40, "--point", "custom.w", "--full")
    assert "x" * 200 in full and "\\x1b[31mred" in full  # whole, and the payload's escape shown, not obeyed
    piped = env.hookd("tail", "--point", "custom.w")
    assert "x" * 200 in piped.stdout  # not a terminal: whole lines
