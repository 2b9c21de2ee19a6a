"""Persistent (warm) command hooks through a real daemon: a worker that crashes in a loop as `hookd`
shows it, reloads (SIGHUP too), the daemon's stop leaving no worker behind, and the worker helper end
to end with a handler's prints in the daemon's log. What a worker does on each call, in process:
tests/daemon/test_warm_hooks.py."""

from __future__ import annotations

import json
import re
import signal
import threading
from pathlib import Path
from typing import Any

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
