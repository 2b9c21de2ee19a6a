"""Persistent (warm) command hooks through a real daemon: what users do with `mode: persistent`."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hookd_client import Client

from ..conftest import Env, write_script
from ..processes import alive, gone_soon

POINT = "tool.approval.pre"

# Answers with its pid, its argv[1] (a version tag) and, for "hang", never.
TAGGED = """
import json, os, sys
for line in sys.stdin:
    req = json.loads(line)
    p = req["payload"]
    if p.get("hang"):
        continue
    if p.get("exit") is not None:
        print("crashing as asked", file=sys.stderr, flush=True)
        sys.exit(p["exit"])
    if p.get("raw") is not None:
        sys.stdout.write(p["raw"] * p.get("times", 1)); sys.stdout.flush(); continue
    reason = json.dumps({"pid": os.getpid(), "tag": sys.argv[1] if len(sys.argv) > 1 else "", "point": req["point"],
                         "session": req["session"], "hook": req["hook"], "mode": os.environ.get("HOOKD_MODE")})
    print(json.dumps({"id": req["id"], "decision": {"decision": "allow", "reason": reason}}), flush=True)
"""


def hook(command: Path, **extra: Any) -> dict[str, Any]:
    spec = {"name": "warm", "point": POINT, "type": "decision", "command": str(command), "enabled": True, "mode": "persistent"}
    spec.update(extra)
    return spec


def info(outcome: Any) -> dict[str, Any]:
    assert outcome.decision == "allow", outcome
    return json.loads(outcome.reason)


def workers(c: Client) -> list[Any]:
    return c.status().workers


def test_one_warm_worker_serves_every_call(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "tagged.py", TAGGED)
    with daemon.client() as c:
        c.attach_session("s1", [hook(script)])
        first = info(c.decide(POINT, {"n": 1}, session="s1"))
        assert first == {"pid": first["pid"], "tag": "", "point": POINT, "session": "s1", "hook": "warm", "mode": "persistent"}
        for n in range(20):
            assert info(c.decide(POINT, {"n": n}, session="s1"))["pid"] == first["pid"]
        (w,) = workers(c)
        assert w.state == "running" and w.pid == first["pid"] and w.served == 21
        assert c.dispose_session("s1") == 1
    assert gone_soon(first["pid"])


def test_out_of_order_answers_with_concurrency(env: Env, daemon, tmp_path: Path) -> None:
    # Holds requests until it has two, then answers them newest first: only works
    # if the daemon sends two at once and matches answers by id.
    script = write_script(
        tmp_path / "reverser.py",
        """
        import json, sys
        held = []
        for line in sys.stdin:
            held.append(json.loads(line))
            if len(held) == 2:
                for req in reversed(held):
                    print(json.dumps({"id": req["id"], "decision": {"decision": "deny", "reason": req["payload"]["who"]}}), flush=True)
                held = []
        """,
    )
    with daemon.client() as c:
        c.attach_session("s1", [hook(script, concurrency=2, timeout=20)])
    results: dict[str, str] = {}

    def call(who: str) -> None:
        with daemon.client() as c:
            results[who] = c.decide(POINT, {"who": who}, session="s1").reason

    threads = [threading.Thread(target=call, args=(who,)) for who in ("alice", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == {"alice": "alice", "bob": "bob"}


def test_a_hanging_worker_is_killed_restarted_and_the_next_call_is_fine(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "tagged.py", TAGGED)
    with daemon.client() as c:
        c.attach_session("s1", [hook(script, timeout=1)])
        pid = info(c.decide(POINT, {}, session="s1"))["pid"]
        out = c.decide(POINT, {"hang": True}, session="s1")
        assert out.decision is None  # on_error: continue
        assert [e.code for e in out.errors] == ["timeout"]
        assert gone_soon(pid)
        again = info(c.decide(POINT, {}, session="s1"))
        assert again["pid"] != pid
        (w,) = workers(c)
        assert w.restarts == 1 and w.failures == 0 and w.state == "running"


def test_a_worker_that_crashes_in_a_loop_is_marked_failed(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "tagged.py", TAGGED)
    with daemon.client() as c:
        c.attach_session("s1", [hook(script, on_error="deny")])
        messages = []
        for _ in range(5):
            out = c.decide(POINT, {"exit": 7}, session="s1")
            assert out.decision == "deny"  # on_error: deny
            messages.append(out.errors[0].message)
        assert all("exited with status 7" in m and "crashing as asked" in m for m in messages)
        (w,) = workers(c)
        assert w.state == "failed" and w.failures == 5 and "status 7" in w.error
        out = c.decide(POINT, {}, session="s1")  # would succeed if it were restarted
        # Not run, with its last error (named under not_run once the engine folds HookNotRun in).
        named = [n.message for n in out.not_run if n.reason == "worker_failed"] + [e.message for e in out.errors]
        assert out.decision == "deny" and any("gave up after 5 failures" in m and "status 7" in m for m in named), out
    assert "worker marked failed" in daemon.log()
    status = env.hookd("status")
    assert status.returncode == 0 and "warm (session:s1)  failed" in status.stdout, status.stdout
    listing = env.hookd("hooks")
    assert listing.returncode == 0 and "worker: failed: " in listing.stdout and "status 7" in listing.stdout, listing.stdout
    tail = env.hookd("tail", "--json", "--no-follow", "--point", "hookd.worker.*", "-n", "5")
    assert tail.returncode == 0, tail.stderr
    (event,) = [json.loads(line) for line in tail.stdout.splitlines()]
    assert event["point"] == "hookd.worker.failed" and event["payload"]["worker"] == "warm (session:s1)"
    assert "status 7" in event["payload"]["error"] and event["payload"]["failures"] == 5
    with daemon.client() as c:
        c.attach_session("s1", [hook(script, on_error="deny")])  # attaching it again gives it a fresh start
        assert info(c.decide(POINT, {}, session="s1"))["tag"] == ""
        assert [w.state for w in workers(c)] == ["running"]


def test_garbage_or_an_overlong_line_kills_the_worker(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "tagged.py", TAGGED)
    with daemon.client() as c:
        c.attach_session("s1", [hook(script)])
        pid = info(c.decide(POINT, {}, session="s1"))["pid"]
        out = c.decide(POINT, {"raw": "debug output on stdout\n"}, session="s1")
        assert out.decision is None and "not a JSON object" in out.errors[0].message
        assert gone_soon(pid)
        pid = info(c.decide(POINT, {}, session="s1"))["pid"]
        out = c.decide(POINT, {"raw": "x", "times": (1 << 20) + 1}, session="s1")  # the default cap is 1 MiB
        assert "over the cap" in out.errors[0].message
        assert gone_soon(pid)


def test_a_reload_that_changes_the_spec_replaces_the_worker(env: Env, daemon_factory, tmp_path: Path) -> None:
    script = write_script(tmp_path / "tagged.py", TAGGED)
    spec = {"name": "warm", "point": POINT, "type": "decision", "command": str(script), "enabled": True, "mode": "persistent"}
    env.write_global_hooks(json.dumps({"hooks": [{**spec, "args": ["v1"]}]}))
    d = daemon_factory()
    with d.client() as c:
        v1 = info(c.decide(POINT, {}))
        assert v1["tag"] == "v1"
        c.reload_user_hooks()  # unchanged: the worker stays warm
        assert info(c.decide(POINT, {}))["pid"] == v1["pid"]
        env.write_global_hooks(json.dumps({"hooks": [{**spec, "args": ["v2"]}]}))
        c.reload_user_hooks()
        assert gone_soon(v1["pid"])
        v2 = info(c.decide(POINT, {}))
        assert v2["tag"] == "v2" and v2["pid"] != v1["pid"]
        env.write_global_hooks(json.dumps({"hooks": [{**spec, "args": ["v3"]}]}))
        d.signal(signal.SIGHUP)
        assert gone_soon(v2["pid"])
        assert info(c.decide(POINT, {}))["tag"] == "v3"
        env.write_global_hooks("hooks: []\n")
        c.reload_user_hooks()
        assert workers(c) == []


def test_shutdown_leaves_no_worker_behind(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(
        tmp_path / "forks.py",
        """
        import json, subprocess, sys
        child = subprocess.Popen(["sleep", "300"])
        for line in sys.stdin:
            req = json.loads(line)
            print(json.dumps({"id": req["id"], "decision": {"injection": f"{child.pid}"}}), flush=True)
        """,
    )
    with daemon.client() as c:
        c.attach_session("s1", [hook(script), hook(script, name="second", concurrency=4)])
        children = [int(p) for p in re.findall(r"\d+", c.decide(POINT, {}, session="s1").injection)]
        pids = [w.pid for w in workers(c)]
    assert len(pids) == 2 and len(children) == 2
    assert all(alive(p) for p in [*pids, *children])
    assert daemon.stop() == 0
    assert all(gone_soon(p) for p in [*pids, *children])


def test_a_bad_mode_or_concurrency_in_a_hook_file_is_rejected(env: Env, daemon, tmp_path: Path) -> None:
    from hookd_client import HookdError

    base = {"name": "warm", "point": POINT, "type": "decision", "command": "/bin/true", "enabled": True}
    with daemon.client() as c:
        for field, bad in (("mode", "warm"), ("concurrency", 0)):
            env.write_global_hooks(json.dumps({"hooks": [{**base, field: bad}]}))
            try:
                c.reload_user_hooks()
            except HookdError as exc:
                assert exc.code == "config_invalid" and field in exc.message, exc.message
            else:
                raise AssertionError(f"{field}: {bad!r} was accepted")
        assert c.status().hooks == 0


def test_the_worker_helper_end_to_end(env: Env, daemon, tmp_path: Path) -> None:
    sync = write_script(
        tmp_path / "sync_hook.py",
        """
        from hookd_client.messages import Decision
        from hookd_client.worker import serve

        def check(event):
            print("handlers may print; it goes to stderr")
            cmd = event["payload"].get("command", "")
            if cmd == "boom":
                raise RuntimeError("handler blew up")
            if "rm -rf" in cmd:
                return Decision("deny", reason="no recursive force delete")
            if cmd == "dict":
                return {"decision": "ask", "reason": "a plain dict"}
            return None

        serve(check)
        """,
    )
    asynchronous = write_script(
        tmp_path / "async_hook.py",
        """
        import asyncio
        from hookd_client.worker import serve

        async def slow(event):
            await asyncio.sleep(event["payload"]["delay"])
            return {"decision": "allow", "reason": str(event["payload"]["delay"])}

        serve(slow)
        """,
    )
    with daemon.client() as c:
        c.attach_session("sync", [hook(sync, on_error="ask")])
        assert c.decide(POINT, {"command": "rm -rf /"}, session="sync").decision == "deny"
        assert c.decide(POINT, {"command": "ls"}, session="sync").decision is None
        assert c.decide(POINT, {"command": "dict"}, session="sync").reason == "a plain dict"
        out = c.decide(POINT, {"command": "boom"}, session="sync")
        assert out.decision == "ask" and "RuntimeError: handler blew up" in out.errors[0].message
        assert c.decide(POINT, {"command": "ls"}, session="sync").errors == []  # still serving
        c.attach_session("async", [hook(asynchronous, concurrency=8, timeout=20)])
    results: list[str] = []

    def call(delay: float) -> None:
        with daemon.client() as c:
            results.append(c.decide(POINT, {"delay": delay}, session="async").reason)

    threads = [threading.Thread(target=call, args=(d,)) for d in (0.6, 0.0)]
    threads[0].start()
    threading.Event().wait(0.2)
    threads[1].start()
    for t in threads:
        t.join(30)
    assert results == ["0.0", "0.6"]  # the quick one was answered while the slow one was still running
    assert "handlers may print" in daemon.log()  # a handler's prints reach the daemon's log, not the protocol


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "warm-hooks"


@pytest.mark.parametrize(
    ("argv", "needs", "command", "decision"),
    [
        ([str(EXAMPLES / "guard.sh")], "jq", "rm -rf /", "deny"),
        (["node", str(EXAMPLES / "audit.mjs")], "node", "curl x | sh", "ask"),
        ([sys.executable, str(EXAMPLES / "guard.py")], None, "rm -rf /", "deny"),
    ],
)
def test_the_examples_work(env: Env, daemon, argv: list[str], needs: str | None, command: str, decision: str) -> None:
    if needs and shutil.which(needs) is None:
        pytest.skip(f"{needs} is not installed")
    spec = hook(Path(argv[0]), args=argv[1:], concurrency=4)
    with daemon.client() as c:
        c.attach_session("s1", [spec])
        assert c.decide(POINT, {"args": {"command": command}}, session="s1").decision == decision
        out = c.decide(POINT, {"args": {"command": "ls"}}, session="s1")
        assert out.decision is None and out.errors == []


def test_a_persistent_observer_and_a_project_hook(env: Env, daemon, tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    observer = write_script(
        tmp_path / "observer.py",
        f"""
        import json, os, sys
        for line in sys.stdin:
            req = json.loads(line)
            with open({str(seen)!r}, "a") as f:
                f.write(json.dumps({{"point": req["point"], "payload": req["payload"], "cwd": os.getcwd(),
                                     "project_env": os.environ.get("HOOKD_PROJECT_DIR")}}) + "\\n")
            print(json.dumps({{"id": req["id"], "decision": None}}), flush=True)
        """,
    )
    project = tmp_path / "proj"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(
        json.dumps(
            {
                "hooks": [
                    {
                        "name": "audit",
                        "point": "tool.execute.after",
                        "type": "observer",
                        "command": str(observer),
                        "enabled": True,
                        "mode": "persistent",
                    }
                ]
            }
        )
    )
    with daemon.client() as c:
        for n in range(3):
            out = c.emit("tool.execute.after", {"n": n}, project=str(project), wait=True)
            assert out.observers == 1 and out.errors == []
        (w,) = workers(c)
        assert w.name == "audit (project:proj)" and w.served == 3
        records = [json.loads(line) for line in seen.read_text().splitlines()]
        assert [r["payload"]["n"] for r in records] == [0, 1, 2]
        assert {r["cwd"] for r in records} == {str(project)} and {r["project_env"] for r in records} == {str(project)}
        assert c.dispose_project(str(project)) == 1
        assert gone_soon(w.pid)
        assert workers(c) == []


def test_a_global_worker_serves_each_project_as_its_own(env: Env, daemon_factory, tmp_path: Path) -> None:
    """One worker serves a global hook for every project: its environment names no project (not the
    first caller's), and each request names the call's own."""
    script = write_script(
        tmp_path / "where.py",
        """
        import json, os, sys
        for line in sys.stdin:
            req = json.loads(line)
            reason = json.dumps({"env": os.environ.get("HOOKD_PROJECT_DIR"), "project": req["project"], "pid": os.getpid()})
            print(json.dumps({"id": req["id"], "decision": {"decision": "deny", "reason": reason}}), flush=True)
        """,
    )
    env.write_global_hooks(json.dumps({"hooks": [hook(script, name="where")]}))
    daemon = daemon_factory()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    with daemon.client() as c:
        seen = [json.loads(c.decide(POINT, {}, project=str(p)).reason) for p in (first, second, first)]
    assert [s["project"] for s in seen] == [str(first), str(second), str(first)]
    assert all(s["env"] == "" for s in seen), seen  # never the first caller's project
    assert len({s["pid"] for s in seen}) == 1
