"""`hookd tail` and the journal, as a user runs them: real daemons, real files, the real CLI."""

from __future__ import annotations

import json
import queue
import subprocess
import threading

from hookd_client import Client

from ..conftest import HOOKD, write_script

HANG_GUARD = 30.0


def test_journal_rotates_and_tail_reads_across_a_daemon_restart(env, daemon_factory):
    opts = ("--journal-max-bytes", "20000", "--journal-keep", "3")
    first = daemon_factory(*opts)
    with Client(first.socket) as c:
        for i in range(600):
            c.emit("custom.j", {"i": i, "pad": "x" * 60}, session="s1")
    assert first.stop() == 0

    journal = env.state / "hookd" / "events.jsonl"
    files = [journal.with_name(f"events.jsonl.{n}") for n in (3, 2, 1)] + [journal]
    assert all(f.exists() for f in files)
    assert not journal.with_name("events.jsonl.4").exists()
    assert all(f.stat().st_size <= 20000 for f in files)
    seqs = [json.loads(line)["seq"] for f in files for line in f.read_text().splitlines()]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # oldest file first, nothing lost inside the window
    assert len(seqs) < 600  # the oldest events rotated away

    second = daemon_factory(*opts)
    with Client(second.socket) as c:
        for i in range(600, 605):
            c.emit("custom.j", {"i": i}, session="s1")
    # The newest events may not be on disk yet: tail takes them from the running daemon.
    r = env.hookd("tail", "--since", "1h", "--json", "--point", "custom.j")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    got = [e["payload"]["i"] for e in events]
    assert got == list(range(got[0], 605)) and got[0] > 0
    tail_seqs = [e["seq"] for e in events]
    assert tail_seqs == sorted(set(tail_seqs))
    assert tail_seqs[-5] > seqs[-1]  # seq continues across the restart

    assert second.stop() == 0
    r = env.hookd("tail", "--since", "1h", "--json", "--point", "custom.j")  # no daemon: the journal alone
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["payload"]["i"] for line in r.stdout.splitlines()] == got
    r = env.hookd("tail", "-f", "-n", "2", "--json", "--point", "custom.j")  # following needs a daemon: history, then a clear error
    assert r.returncode == 3 and "no hookd daemon" in r.stderr  # 3: the daemon is not reachable
    assert [json.loads(line)["payload"]["i"] for line in r.stdout.splitlines()] == [603, 604]


def _scenario(env, daemon, tmp_path) -> None:  # type: ignore[no-untyped-def]
    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        p = json.load(sys.stdin)
        if "rm -rf" in p.get("args", {}).get("command", ""):
            print(json.dumps({"decision": "deny", "reason": "no recursive force delete"}))
        """,
    )
    with Client(daemon.socket) as c:
        c.attach_session("s1", [{"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": str(guard)}])
        c.emit("tool.execute.after", {"toolName": "execute_command", "args": {"command": "ls -la"}, "duration": 12}, session="s1")
        c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "rm -rf /"}}, session="s1")


def test_tail_human_format(env, daemon, tmp_path):
    _scenario(env, daemon, tmp_path)
    r = env.hookd("tail", "--session", "s1")  # stdout is not a terminal: no follow, no colour
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3, r.stdout
    attached, emitted, decided = lines
    assert "hookd.session.attached" in attached
    assert "tool.execute.after" in emitted and " s1 " in emitted and "execute_command ls -la" in emitted and "12ms" in emitted
    assert "tool.approval.pre" in decided and "execute_command rm -rf /" in decided
    assert "deny (no recursive force delete) by guard" in decided
    assert decided.index("deny") < decided.index("execute_command rm -rf /")  # the verdict before the payload
    assert "\x1b[" not in r.stdout

    r = env.hookd("tail", "--session", "s1", "--color", "always", "-n", "1")
    assert r.stdout.count("\n") == 1 and "\x1b[31mdeny\x1b[0m" in r.stdout

    r = env.hookd("tail", "--point", "tool.execute.*")
    assert len(r.stdout.splitlines()) == 1 and "tool.execute.after" in r.stdout


def test_tail_json_format(env, daemon, tmp_path):
    _scenario(env, daemon, tmp_path)
    r = env.hookd("tail", "--json", "--point", "tool.*")
    assert r.returncode == 0, r.stderr
    emitted, decided = (json.loads(line) for line in r.stdout.splitlines())
    assert emitted["type"] == "event" and emitted["kind"] == "emit" and emitted["session"] == "s1"
    assert emitted["payload"]["args"]["command"] == "ls -la"
    assert decided["kind"] == "decide" and decided["decision"] == "deny"
    assert decided["reason"] == "no recursive force delete"
    assert decided["decided_by"] == {"name": "guard", "scope": "session", "source": "session:s1"}
    assert decided["seq"] > emitted["seq"]


def test_tail_follow_prints_history_then_live_events(env, daemon):
    with Client(daemon.socket) as c:
        for i in range(3):
            c.emit("custom.f", {"i": i})
        proc = subprocess.Popen(
            [*HOOKD, "tail", "-f", "--json", "--point", "custom.f", "--since", "1h"],
            env=env.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
        try:
            got = [json.loads(lines.get(timeout=HANG_GUARD))["payload"]["i"] for _ in range(3)]
            for i in range(3, 6):
                c.emit("custom.f", {"i": i})
            got += [json.loads(lines.get(timeout=HANG_GUARD))["payload"]["i"] for _ in range(3)]
        finally:
            proc.terminate()
            proc.wait(HANG_GUARD)
    assert got == list(range(6))


def test_tail_rejects_bad_arguments_clearly(env, daemon):
    r = env.hookd("tail", "--since", "yesterday")
    assert r.returncode == 2 and "--since" in r.stderr and "duration" in r.stderr
    r = env.hookd("tail", "-n", "-3")
    assert r.returncode == 2 and "--lines" in r.stderr
    r = env.hookd("tail", "--help")
    assert r.returncode == 0 and "--follow" in r.stdout and "--since" in r.stdout


def test_on_a_terminal_tail_follows_and_colours_by_default(env, daemon):
    import os
    import pty
    import select

    with Client(daemon.socket) as c:
        c.emit("custom.tty", {"i": 0})
    master, slave = pty.openpty()
    proc = subprocess.Popen([*HOOKD, "tail", "--point", "custom.tty"], env=env.env, stdout=slave, stderr=subprocess.PIPE)
    os.close(slave)
    seen = b""
    try:
        with Client(daemon.socket) as c:
            while b"i=1" not in seen:
                ready, _, _ = select.select([master], [], [], HANG_GUARD)
                assert ready, f"tail printed nothing; so far: {seen!r}"
                seen += os.read(master, 65536)
                if b"i=0" in seen and b"i=1" not in seen:
                    c.emit("custom.tty", {"i": 1})  # it is still running: following
        assert proc.poll() is None
        assert b"\x1b[" in seen
    finally:
        proc.terminate()
        proc.wait(HANG_GUARD)
        os.close(master)


def test_tail_follow_with_no_history_prints_only_new_events(env, daemon):
    with Client(daemon.socket) as c:
        c.emit("custom.n0", {"old": True})
        proc = subprocess.Popen(
            [*HOOKD, "tail", "-f", "-n", "0", "--json", "--point", "custom.n0"], env=env.env, stdout=subprocess.PIPE, text=True
        )
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
        try:
            first = None
            for _ in range(int(HANG_GUARD / 0.2)):  # it prints nothing until it is subscribed and something new happens
                c.emit("custom.n0", {"new": True})
                try:
                    first = json.loads(lines.get(timeout=0.2))
                    break
                except queue.Empty:
                    continue
            assert first is not None and first["payload"] == {"new": True}
            assert proc.poll() is None
        finally:
            proc.terminate()
            proc.wait(HANG_GUARD)
