"""`hookd tail --decision KIND` and `--until WHEN`: the same filters whether the events come from the
journal, from the daemon's memory, or live. Real daemons, real hooks, the real CLI."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path

import msgspec
import pytest
from hookd_client import Client
from hookd_client.messages import Event

from ..conftest import HOOKD, Env, write_script

HANG_GUARD = 30.0
POINT = "tool.approval.pre"
# What the guard answers for each command; "echo" gets no answer at all (no decision).
CALLS = [("ls", "allow"), ("rm -rf /", "deny"), ("sudo su", "ask"), ("echo hi", None), ("rm x", "deny")]


def _guard(env: Env, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        command = json.load(sys.stdin).get("args", {}).get("command", "")
        for word, decision in (("rm", "deny"), ("sudo", "ask"), ("ls", "allow")):
            if command.startswith(word):
                print(json.dumps({"decision": decision, "reason": word}))
                break
        """,
    )
    env.write_global_hooks(f"hooks:\n  - name: by-word\n    point: {POINT}\n    type: decision\n    command: {script}\n    enabled: true\n")


def _tail(env: Env, *args: str) -> list[dict]:
    r = env.hookd("tail", "--no-follow", "--json", "--since", "1h", *args)
    assert r.returncode == 0, r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


def _calls(socket: str) -> None:
    """The calls of CALLS, each followed by an emit (an event with no decision)."""
    with Client(socket) as c:
        for command, _ in CALLS:
            c.decide(POINT, {"toolName": "execute_command", "args": {"command": command}})
            c.emit("custom.between", {"after": command})


@pytest.mark.parametrize("source", ["journal", "daemon"])
def test_decision_and_until_filter_the_journal_and_the_daemons_memory(env: Env, daemon_factory, tmp_path: Path, source: str) -> None:
    _guard(env, tmp_path)
    daemon = daemon_factory(*(["--no-journal"] if source == "daemon" else []))
    _calls(daemon.socket)
    every = [e for e in _tail(env) if e["point"] in (POINT, "custom.between")]
    decides = [e for e in every if e["kind"] == "decide"]
    assert [(e["payload"]["args"]["command"], e.get("decision")) for e in decides] == CALLS
    if source == "journal":
        assert daemon.stop() == 0  # the journal alone answers

    got = _tail(env, "--decision", "deny")
    assert [(e["payload"]["args"]["command"], e["decision"]) for e in got] == [("rm -rf /", "deny"), ("rm x", "deny")]
    got = _tail(env, "--decision", "ask", "--decision", "ALLOW")  # repeatable, any case
    assert [e["decision"] for e in got] == ["allow", "ask"]
    got = _tail(env, "--decision", "none,deny")  # a comma list; none: no hook decided
    assert [e.get("decision") for e in got] == ["deny", None, "deny"]
    assert all(e["kind"] == "decide" for e in got)  # emits and the daemon's own events have no decision

    # --until SEQ: that event is the last shown; with --since SEQ, the range between.
    deny, ask = decides[1]["seq"], decides[2]["seq"]
    got = _tail(env, "--point", "custom.between", "--point", POINT, "--until", str(ask))
    assert [e["seq"] for e in got] == [e["seq"] for e in every if e["seq"] <= ask]
    got = [e["seq"] for e in _tail(env, "--since", str(deny), "--until", str(ask), "--point", "tool.*")]
    assert got == [deny, ask]
    got = _tail(env, "--until", str(ask), "--decision", "deny,allow")
    assert [e["decision"] for e in got] == ["allow", "deny"]
    # -n: the last N before the end.
    got = _tail(env, "--until", str(ask), "-n", "1", "--point", "custom.*")
    assert [e["payload"] for e in got] == [{"after": "rm -rf /"}]
    # A duration: everything here is younger than an hour, so nothing ends an hour ago.
    assert _tail(env, "--since", "2h", "--until", "1h") == []


def test_until_a_duration_ago_reads_the_journal_by_time(env: Env, tmp_path: Path) -> None:
    now = time.time()
    journal = tmp_path / "events.jsonl"
    ages = [(3 * 3600, "allow"), (2 * 3600, "deny"), (1800, "deny"), (300, "allow")]
    events = [
        Event(seq=i + 1, time=now - age, kind="decide", point=POINT, payload={"age": age}, decision=decision)  # type: ignore[arg-type]
        for i, (age, decision) in enumerate(ages)
    ]
    journal.write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in events))
    base = ("--journal", str(journal))  # no daemon runs: the journal alone
    assert [e["payload"]["age"] for e in _tail(env, *base, "--since", "4h", "--until", "1h")] == [10800, 7200]
    r = env.hookd("tail", *base, "--no-follow", "--json", "--since", "4h", "--until", "1h", "--decision", "deny")
    assert [json.loads(line)["payload"]["age"] for line in r.stdout.splitlines()] == [7200]
    r = env.hookd("tail", *base, "--json", "--until", "10m", "-n", "2")
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["payload"]["age"] for line in r.stdout.splitlines()] == [7200, 1800]
    r = env.hookd("tail", *base, "--until", "10m", "--decision", "allow")  # the human line
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 1 and f"  {POINT}  " in lines[0] and lines[0].endswith(" allow"), r.stdout


def test_bad_decision_and_until_are_usage_errors(env: Env) -> None:
    for args, said in (
        (("--decision", "maybe"), "--decision: 'maybe' is not one of allow, deny, ask, continue, none"),
        (("--decision", "deny,"), "--decision: '' is not one of"),
        (("--until", "yesterday"), "--until:"),
        (("--since", "1h", "--until", "2h"), "--until 2h ends before --since 1h starts"),
        (("--since", "20", "--until", "10"), "--until 10 ends before --since 20 starts"),
        (("--until", "1h", "--follow"), "--until reads the past: it cannot go with --follow"),
    ):
        r = env.hookd("tail", *args)
        assert r.returncode == 2 and said in r.stderr, (args, r.stderr)
        assert r.stdout == ""


def test_live_events_are_filtered_by_decision(env: Env, daemon_factory, tmp_path: Path) -> None:
    _guard(env, tmp_path)
    daemon = daemon_factory()
    proc = subprocess.Popen(
        [*HOOKD, "tail", "-f", "-n", "0", "--json", "--decision", "deny"], env=env.env, stdout=subprocess.PIPE, text=True
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        with Client(daemon.socket) as c:
            first = None
            for i in range(int(HANG_GUARD / 0.2)):  # it prints nothing until it is subscribed and a denial comes
                c.decide(POINT, {"args": {"command": f"ls {i}"}})
                c.decide(POINT, {"args": {"command": f"rm {i}"}})
                c.emit("custom.between", {"i": i})
                try:
                    first = json.loads(lines.get(timeout=0.2))
                    break
                except queue.Empty:
                    continue
            assert first is not None and first["decision"] == "deny", first
            n = int(first["payload"]["args"]["command"].split()[1])
            c.decide(POINT, {"args": {"command": "ls last"}})
            c.decide(POINT, {"args": {"command": "rm last"}})
            following = [json.loads(lines.get(timeout=HANG_GUARD)) for _ in range(i - n + 1)]
        commands = [e["payload"]["args"]["command"] for e in following]
        assert commands == [f"rm {k}" for k in range(n + 1, i + 1)] + ["rm last"], commands
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(HANG_GUARD)
