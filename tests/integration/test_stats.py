"""Stats and per-hook results, on a real daemon with real YAML and real subprocess hooks: what each
hook did is counted per hook, per point and per session; each decide's event (live and in the
journal) carries its hooks' results; `hookd stats` shows them; a daemon with --no-stats says so."""

from __future__ import annotations

import json
import time
from pathlib import Path

from hookd_client import Client
from hookd_client.messages import Event

from hookd.events import journal_files

from ..conftest import Env, write_script

HANG_GUARD = 120
GUARD = """
import json, sys
payload = json.load(sys.stdin)
if "rm" in payload.get("args", {}).get("command", ""):
    print(json.dumps({"decision": "deny", "reason": "no rm"}))
"""
FAILS = "import sys\nsys.stderr.write('it broke\\n')\nsys.exit(1)\n"


def _setup(env: Env, tmp_path: Path) -> None:
    guard = write_script(tmp_path / "guard.py", GUARD)
    fails = write_script(tmp_path / "fails.py", FAILS)
    env.write_global_hooks(
        f"""
        hooks:
          - name: guard
            point: tool.approval.pre
            type: decision
            command: {guard}
            enabled: true
            priority: 10
            match: {{toolName: Bash}}
          - name: broken
            point: tool.approval.pre
            type: decision
            command: {fails}
            enabled: true
        """
    )


def _bash(command: str) -> dict[str, object]:
    return {"toolName": "Bash", "args": {"command": command}}


def _by_name(stats: object) -> dict[str, object]:
    return {h.hook.name: h for h in stats.hooks}  # type: ignore[attr-defined]


def test_stats_count_each_hook_point_and_session(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        for command in ("rm -rf x", "rm y", "rm z", "ls", "pwd"):
            c.decide("tool.approval.pre", _bash(command), session="s1")
        c.decide("tool.approval.pre", {"toolName": "Read"}, session="s2")
        stats = c.stats()
    assert stats.enabled and stats.window == 300
    hooks = _by_name(stats)
    guard, broken = hooks["guard"], hooks["broken"]
    assert (guard.life.calls, guard.life.denies, guard.life.errors, guard.life.skips) == (5, 3, 0, {"match": 1})
    assert guard.life.p50 is not None and guard.life.p50 <= guard.life.p95 <= guard.life.p99 <= guard.life.max
    assert guard.recent.calls == 5 and guard.recent.denies == 3
    # The broken hook runs when the guard abstained or did not match, and is skipped after a deny.
    assert (broken.life.calls, broken.life.errors, broken.life.skips) == (3, 3, {"decided": 3})
    assert "exited with status 1" in broken.last_error and "it broke" in broken.last_error
    assert broken.last_error_time is not None
    points = {p.name: p for p in stats.points}
    assert points["tool.approval.pre"].life.calls == 6 and points["tool.approval.pre"].life.denies == 3
    sessions = {s.name: s for s in stats.sessions}
    assert (sessions["s1"].life.calls, sessions["s1"].life.denies, sessions["s2"].life.calls) == (5, 3, 1)


def test_timeouts_and_observers_are_counted(env: Env, daemon_factory, tmp_path: Path) -> None:
    slow = write_script(tmp_path / "slow.py", "import time\ntime.sleep(60)\n")
    seen = write_script(tmp_path / "seen.py", "import sys\nsys.stdin.read()\n")
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: slow, point: tool.approval.pre, type: decision, command: {slow}, timeout: 0.5, enabled: true}}
          - {{name: seen, point: custom.ping, type: observer, command: {seen}, enabled: true}}
        """
    )
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide("tool.approval.pre", _bash("ls"))
        assert out.errors and out.errors[0].code == "timeout"
        c.emit("custom.ping", {}, wait=True)
        hooks = _by_name(c.stats())
    assert (hooks["slow"].life.calls, hooks["slow"].life.errors, hooks["slow"].life.timeouts) == (1, 1, 1)
    assert hooks["slow"].last_error.startswith("timeout")
    assert (hooks["seen"].type, hooks["seen"].life.calls, hooks["seen"].life.errors) == ("observer", 1, 0)


def test_decide_events_carry_each_hooks_result_live_and_in_the_journal(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        sub = c.subscribe(["tool.*"], timeout=HANG_GUARD).open()
        c.decide("tool.approval.pre", _bash("rm -rf /"), session="s1")
        c.decide("tool.approval.pre", _bash("ls"), session="s1")
        events = [next(sub), next(sub)]
        sub.close()
    assert all(isinstance(e, Event) for e in events)
    denied, passed = events
    assert [(r.hook.name, r.decision, r.skipped) for r in denied.hooks] == [("guard", "deny", None), ("broken", None, "decided")]
    assert denied.hooks[0].ms is not None and denied.hooks[0].reason == "no rm"
    assert [(r.hook.name, r.error) for r in passed.hooks] == [("guard", None), ("broken", "error")]
    assert "it broke" in passed.hooks[1].message
    path = str(env.state / "hookd" / "events.jsonl")
    deadline = time.monotonic() + HANG_GUARD
    journaled: list[Event] = []
    while time.monotonic() < deadline:
        journaled = [e for e in journal_files.read(path) if e.kind == "decide"] if Path(path).exists() else []
        if len(journaled) == 2:
            break
        time.sleep(0.05)
    assert [[r.hook.name for r in e.hooks] for e in journaled] == [["guard", "broken"], ["guard", "broken"]]
    assert journaled[1].hooks[1].error == "error"


def test_hookd_stats_prints_and_prints_json(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        c.decide("tool.approval.pre", _bash("rm a"), session="s1")
    text = env.hookd("stats")
    assert text.returncode == 0, text.stderr
    assert "guard  [decision, global]  tool.approval.pre" in text.stdout
    assert "1 call  1 deny" in text.stdout and "skipped: decided 1" in text.stdout
    out = env.hookd("stats", "--json", "--window", "60")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["window"] == 60 and {h["hook"]["name"] for h in data["hooks"]} == {"guard", "broken"}


def test_stats_off(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory("--no-stats")
    with daemon.client() as c:
        c.decide("tool.approval.pre", _bash("rm a"))
        stats = c.stats()
        assert not stats.enabled and stats.hooks == []
    assert "stats are off" in env.hookd("stats").stdout


def test_a_client_can_read_stats_on_its_own_connection(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        assert c.stats(window=1).window == 1
