"""`hookd replay` against a real daemon: journaled decides run again through today's hooks
(real YAML, real subprocess hooks, a warm worker and a client's callback), shown as text and JSON
with its exit codes. Which calls a replay selects, the hook told it is a replay, and replayed calls
neither published nor counted, in process: tests/daemon/test_replay.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from ..conftest import write_script

POINT = "tool.approval.pre"

# The guard denies the tool named in its policy file and allows the rest; every run leaves a
# line naming the call's marker and what HOOKD_REPLAY said.
GUARD = """
import json, os, sys
call = json.load(sys.stdin)
with open({runs!r}, "a") as f:
    f.write(json.dumps({{"marker": call.get("marker"), "replay": os.environ.get("HOOKD_REPLAY", "")}}) + "\\n")
denied = open({policy!r}).read().strip()
if call.get("toolName") == denied:
    print(json.dumps({{"decision": "deny", "reason": "no " + denied}}))
else:
    print(json.dumps({{"decision": "allow", "reason": "fine"}}))
"""

OBSERVER = """
import json, sys
call = json.load(sys.stdin)
with open({seen!r}, "a") as f:
    f.write(json.dumps({{"marker": call.get("marker")}}) + "\\n")
"""

HOOKS = """
hooks:
  - name: guard
    point: tool.approval.pre
    type: decision
    enabled: true
    command: {guard}
  - name: watcher
    point: tool.approval.pre
    type: observer
    enabled: true
    command: {observer}
"""


class Setup:
    def __init__(self, env, daemon, tmp: Path) -> None:  # type: ignore[no-untyped-def]
        self.env = env
        self.daemon = daemon
        self.runs = tmp / "runs.jsonl"
        self.seen = tmp / "seen.jsonl"
        self.policy = tmp / "policy"

    def decide(self, tool: str, marker: str, session: str | None = None, point: str = POINT) -> str | None:
        with self.daemon.client() as c:
            return c.decide(point, {"toolName": tool, "marker": marker}, session=session).decision

    def seqs(self, point: str = POINT) -> list[int]:
        """The decide calls on ``point``, oldest first (the client's subscribe, as `hookd tail` reads them)."""
        with self.daemon.client() as c:
            return [e.seq for e in c.subscribe([point], since="1d", follow=False, timeout=60) if e.kind == "decide"]

    def replay(self, *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
        r = self.env.hookd("replay", "--json", *args, timeout=120)
        assert r.returncode in (0, 1), r.stderr
        return r.returncode, json.loads(r.stdout)

    def lines(self, path: Path) -> list[dict]:  # type: ignore[type-arg]
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def setup(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    s = Setup(env, None, tmp_path)
    s.policy.write_text("Bash")
    guard = write_script(tmp_path / "guard.py", GUARD.format(runs=str(s.runs), policy=str(s.policy)))
    observer = write_script(tmp_path / "observer.py", OBSERVER.format(seen=str(s.seen)))
    env.write_global_hooks(HOOKS.format(guard=guard, observer=observer))
    s.daemon = daemon_factory()
    return s


def wait_for(check, what: str, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_deny_that_would_now_allow_and_the_reverse(setup):  # type: ignore[no-untyped-def]
    assert setup.decide("Bash", "b1") == "deny"
    assert setup.decide("Read", "r1") == "allow"
    first, second = setup.seqs()
    setup.policy.write_text("Read")  # today's guard denies Read and lets Bash through

    code, out = setup.replay(f"{first}..{second}")
    assert code == 1
    assert out["differ"] == 2 and not out["more"]
    bash, read = out["calls"]
    assert (bash["seq"], bash["then"]["decision"], bash["now"]["decision"]) == (first, "deny", "allow")
    assert (read["seq"], read["then"]["decision"], read["now"]["decision"]) == (second, "allow", "deny")
    assert bash["then"]["reason"] == "no Bash" and bash["now"]["reason"] == "fine"
    assert bash["then"]["decided_by"]["name"] == "guard" and bash["now"]["decided_by"]["name"] == "guard"
    assert [h["name"] for h in bash["hooks"]] == ["guard"]
    assert bash["changed"] == ["decision", "reason"]
    assert [(a["hook"]["name"], a["answer"]) for a in read["answers"]] == [("guard", "deny")]

    text = setup.env.hookd("replay", f"{first}..{second}")
    assert text.returncode == 1, text.stderr
    assert f"seq {first}" in text.stdout and "DIFFERS" in text.stdout
    assert "then: deny" in text.stdout and "now:  allow" in text.stdout
    assert "2 calls replayed, 2 differ" in text.stdout


def test_nothing_differs_exits_zero_and_one_seq_replays_one_call(setup):  # type: ignore[no-untyped-def]
    setup.decide("Bash", "b1")
    setup.decide("Read", "r1")
    __, second = setup.seqs()
    code, out = setup.replay(str(second))
    assert code == 0
    assert [c["seq"] for c in out["calls"]] == [second]
    assert out["calls"][0]["differs"] is False and out["calls"][0]["changed"] == []
    text = setup.env.hookd("replay", str(second))
    assert text.returncode == 0 and "1 call replayed, 0 differ" in text.stdout
    assert f"seq {second}" not in text.stdout  # only the calls that differ, unless --all
    shown = setup.env.hookd("replay", str(second), "--all")
    assert shown.returncode == 0 and f"seq {second}" in shown.stdout and "same" in shown.stdout


def test_bad_arguments_exit_two(setup):  # type: ignore[no-untyped-def]
    for args in (("9..3",), ("x",), ("--since", "yesterday"), ("--limit", "0")):
        r = setup.env.hookd("replay", *args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert r.stderr.startswith("hookd: "), args


WARM = """
import os
from hookd_client.worker import serve

def guard(call):
    return {"decision": "allow", "reason": "replay=" + os.environ.get("HOOKD_REPLAY", "")}

serve(guard)
"""


def test_a_warm_worker_replays_in_a_worker_started_with_hookd_replay(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    warm = write_script(tmp_path / "warm.py", WARM)
    env.write_global_hooks(
        f"""
        hooks:
          - name: warm
            point: tool.approval.pre
            type: decision
            mode: persistent
            enabled: true
            command: {warm}
        """
    )
    daemon = daemon_factory()
    with daemon.client() as c:
        assert c.decide(POINT, {"toolName": "Bash"}).reason == "replay="
    s = Setup(env, daemon, tmp_path)
    (seq,) = s.seqs()
    code, out = s.replay(str(seq))
    call = out["calls"][0]
    assert code == 0 and call["differs"] is False  # the same decision; only the reason tells them apart
    assert (call["then"]["reason"], call["now"]["reason"]) == ("replay=", "replay=1")
    assert call["changed"] == ["reason"]
    with daemon.client() as c:  # the warm worker itself still serves real calls, without the flag
        real = c.decide(POINT, {"toolName": "Bash"})
        assert real.reason == "replay="
        assert [w.state for w in c.status().workers] == ["running"]  # the replay's worker is not among them

    def replay_worker(event: str) -> list[int]:
        lines = [json.loads(line) for line in daemon.log().splitlines() if line.startswith("{")]
        return [x["pid"] for x in lines if x.get("event") == event and str(x.get("worker", "")).endswith("[replay]")]

    # The replay ran in a worker of its own, stopped when the replay ended.
    (started,) = replay_worker("worker started")
    wait_for(lambda: replay_worker("worker stopped") == [started], "the replay worker to stop")


def test_a_callback_hook_is_told_it_is_a_replay(env, daemon):  # type: ignore[no-untyped-def]
    from hookd_client import callback

    def guard(payload, ctx):  # type: ignore[no-untyped-def]
        return {"decision": "deny" if ctx.replay else "allow", "reason": f"replay={ctx.replay}"}

    with daemon.client() as c:
        c.attach_session("s1", hooks=[callback(POINT, guard)])
        assert c.decide(POINT, {"toolName": "Bash"}, session="s1").decision == "allow"
        s = Setup(env, daemon, Path("."))
        (seq,) = s.seqs()
        code, out = s.replay(str(seq))
    call = out["calls"][0]
    assert code == 1
    assert (call["then"]["decision"], call["now"]["decision"]) == ("allow", "deny")
    assert call["now"]["reason"] == "replay=True"
    assert call["now"]["decided_by"]["scope"] == "session"


REPLAY_AWARE_PLUGIN = """
from hookd_client import Block

def Guard(ctx):
    def before(inp, out):
        if inp.get("replay"):
            raise Block("replay seen")
    return {"tool.execute.before": before}
"""


def test_a_plugin_handler_is_told_it_is_a_replay(env, daemon_factory):  # type: ignore[no-untyped-def]
    plugins = env.config / "hookd" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "guard.py").write_text(REPLAY_AWARE_PLUGIN)
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide("tool.execute.before", {"tool": "bash", "args": {"command": "ls"}})
        assert out.decision is None and not out.not_run, out
    s = Setup(env, daemon, Path("."))
    (seq,) = s.seqs("tool.execute.before")
    code, out = s.replay(str(seq))
    call = out["calls"][0]
    assert code == 1
    assert (call["then"]["decision"], call["now"]["decision"], call["now"]["reason"]) == (None, "deny", "replay seen")


def test_bad_requests_get_one_error_each_and_the_daemon_goes_on(env, daemon_factory):  # type: ignore[no-untyped-def]
    from hookd_client import HookdError
    from hookd_client import messages as m
    from hookd_client.api import expect

    daemon = daemon_factory()
    with daemon.client() as c:
        for req, code in (
            (m.Replay(c._next_id(), first=9, last=3), "bad_request"),
            (m.Replay(c._next_id(), points=["x" * 300]), "bad_request"),
            (m.Replay(c._next_id(), limit=0), "bad_request"),
        ):
            with pytest.raises(HookdError) as err:
                c._call(req, expect(m.Replayed))
            assert err.value.code == code, req
        assert c._call(m.Replay(c._next_id(), since=0.0), expect(m.Replayed)).calls == []
    daemon.stop()

    off = daemon_factory("--no-journal")
    r = env.hookd("replay", "--since", "1h")
    assert r.returncode == 2 and "journal is off" in r.stderr
    with off.client() as c:
        assert c.status().pid == off.proc.pid


def test_a_guard_that_did_not_run_is_listed_once(env, daemon):  # type: ignore[no-untyped-def]
    from hookd_client import Client

    with Client(daemon.socket) as c:
        c.register_decision(POINT, lambda p: {"decision": "allow"}, session="s1", name="gone-guard", timeout=10)
        assert c.decide(POINT, {"toolName": "Bash"}, session="s1").decision == "allow"
    # Its client is gone: the session keeps the guard, which now cannot run.
    s = Setup(env, daemon, Path("."))
    (seq,) = s.seqs()
    code, out = s.replay(str(seq))
    assert code == 1 and [n["reason"] for n in out["calls"][0]["not_run"]] == ["disconnected"]
    text = env.hookd("replay", str(seq), "--all", timeout=120).stdout
    said = [line for line in text.splitlines() if "gone-guard" in line and "-> not" in line]
    assert len(said) == 1 and "disconnected" in said[0], text
