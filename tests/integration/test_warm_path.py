"""A decide through one warm hook whose worker is running takes the daemon's fast path (no task,
the worker's deadline timer): these check that it keeps every guarantee of the general path,
through a real daemon and real worker processes."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hookd_client import AsyncClient
from hookd_client.approver import ApprovalOffer, AsyncApprover

from ..conftest import Env, write_script
from ..processes import alive, gone_soon

POINT = "tool.approval.pre"
HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite

# Answers allow with its pid; on request exits, writes garbage, asks, or holds its answer until a
# file exists (after writing another, so the test knows it holds the request).
WORKER = """
import json, os, sys, time
for line in sys.stdin:
    req = json.loads(line)
    p = req["payload"]
    if p.get("exit") is not None:
        print("crashing as asked", file=sys.stderr, flush=True)
        sys.exit(p["exit"])
    if p.get("raw") is not None:
        sys.stdout.write(p["raw"]); sys.stdout.flush(); continue
    if p.get("hold"):
        open(p["hold"] + ".held", "w").close()
        while not os.path.exists(p["hold"]):
            time.sleep(0.01)
    decision = "ask" if p.get("ask") else "allow"
    print(json.dumps({"id": req["id"], "decision": {"decision": decision, "reason": str(os.getpid())}}), flush=True)
"""


def spec(script: Path, **extra: Any) -> dict[str, Any]:
    out = {"name": "warm", "point": POINT, "type": "decision", "command": str(script), "enabled": True, "mode": "persistent"}
    out.update(extra)
    return out


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


@pytest.mark.parametrize(
    ("payload", "named"),
    [({"exit": 7}, "exited with status 7"), ({"raw": "not json\n"}, "not a JSON object"), ({"raw": '{"id": "x"}\n'}, "integer")],
)
def test_a_running_worker_that_dies_or_answers_garbage_fails_closed(env: Env, daemon, tmp_path: Path, payload: Any, named: str) -> None:
    script = write_script(tmp_path / "worker.py", WORKER)
    with daemon.client() as c:
        c.attach_session("s1", [spec(script, on_error="deny")])
        first = c.decide(POINT, {}, session="s1")
        assert first.decision == "allow"
        pid = int(first.reason)
        out = c.decide(POINT, payload, session="s1")  # the worker runs: the fast path
        assert out.decision == "deny" and out.decided_by.name == "warm"
        assert [e.code for e in out.errors] == ["error"] and named in out.errors[0].message
        assert gone_soon(pid)
        again = c.decide(POINT, {}, session="s1")
        assert again.decision == "allow" and int(again.reason) != pid


def test_a_timeout_on_a_running_worker_is_an_error_under_on_error(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "worker.py", WORKER)
    hold = tmp_path / "never"
    with daemon.client() as c:
        # Long enough for a worker's start on a loaded machine (a start counts against it too).
        c.attach_session("s1", [spec(script, timeout=5, on_error="ask")])
        pid = int(c.decide(POINT, {}, session="s1").reason)
        out = c.decide(POINT, {"hold": str(hold)}, session="s1")
        assert out.decision == "ask" and [e.code for e in out.errors] == ["timeout"]
        assert out.errors[0].message == "no answer within 5 s"
        assert gone_soon(pid)
        assert c.status().workers[0].restarts == 0  # restarted on the next call, not before
        assert c.decide(POINT, {}, session="s1").decision == "allow"


def test_a_hook_removed_while_its_call_is_in_flight_answers_it_then_stops(env: Env, daemon_factory, tmp_path: Path) -> None:
    script = write_script(tmp_path / "worker.py", WORKER)
    env.write_global_hooks(json.dumps({"hooks": [spec(script)]}))
    d = daemon_factory()
    go = tmp_path / "go"
    with d.client() as c:
        pid = int(c.decide(POINT, {}).reason)
        result: dict[str, Any] = {}

        def call() -> None:
            with d.client() as other:
                result["out"] = other.decide(POINT, {"hold": str(go)})

        thread = threading.Thread(target=call)
        thread.start()
        wait_for(Path(str(go) + ".held"))  # the worker holds the call
        env.write_global_hooks("hooks: []\n")
        c.reload_user_hooks()
        # The call in flight holds its worker: retired, but not stopped while the call needs it.
        assert [(w.pid, w.state) for w in c.status().workers] == [(pid, "running")] and alive(pid)
        go.touch()
        thread.join(HANG_GUARD)
        out = result["out"]
        assert out.decision == "allow" and int(out.reason) == pid and out.errors == []
        assert gone_soon(pid)  # released by the call's end, the retired worker stops
        assert c.decide(POINT, {}).decision is None


def test_the_call_is_on_the_bus_with_its_hook_and_observers_see_its_outcome(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "worker.py", WORKER)
    seen = tmp_path / "seen.jsonl"
    observer = write_script(
        tmp_path / "observer.py",
        f"""
        import json, sys
        call = json.load(sys.stdin)
        with open({str(seen)!r}, "a") as f:
            f.write(json.dumps(call.get("payload", call).get("outcome")) + "\\n")
        """,
    )
    observing = {"name": "obs", "point": POINT, "type": "observer", "command": str(observer), "enabled": True}
    with daemon.client() as c:
        c.attach_session("s1", [spec(script), observing])
        c.decide(POINT, {"n": 0}, session="s1")
        out = c.decide(POINT, {"n": 1}, session="s1")
        assert out.decision == "allow"
    wait_for(seen)
    deadline = time.monotonic() + HANG_GUARD
    while len(seen.read_text().splitlines()) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    outcomes = [json.loads(line) for line in seen.read_text().splitlines()]
    assert all(o["decision"] == "allow" and o["decidedBy"]["name"] == "warm" for o in outcomes)
    tail = env.hookd("tail", "--json", "--no-follow", "--point", POINT, "-n", "1")
    assert tail.returncode == 0, tail.stderr
    (event,) = [json.loads(line) for line in tail.stdout.splitlines()]
    assert event["payload"]["n"] == 1 and event["decision"] == "allow" and event["duration"] >= 0, event
    (run,) = event["hooks"]
    assert run["hook"]["name"] == "warm" and run["decision"] == "allow" and run["ms"] >= 0, event


def test_an_ask_from_a_running_worker_waits_for_an_approver(env: Env, daemon, tmp_path: Path) -> None:
    script = write_script(tmp_path / "worker.py", WORKER)
    env.write_global_hooks(json.dumps({"hooks": [spec(script)]}))

    async def main() -> Any:
        async with AsyncClient(daemon.socket) as agent:
            assert (await agent.decide(POINT, {}, session="s1")).decision == "allow"  # the worker runs
            async with AsyncApprover(daemon.socket, name="alice") as alice:
                call = asyncio.ensure_future(agent.decide(POINT, {"ask": True}, session="s1"))
                while True:
                    offer = await alice.next(HANG_GUARD)
                    if isinstance(offer, ApprovalOffer):
                        break
                assert offer.asked_by.name == "warm" and not call.done()
                await alice.answer(offer.offer, "deny", "not now")
                return await asyncio.wait_for(call, HANG_GUARD)

    with daemon.client() as c:
        c.reload_user_hooks()
    out = asyncio.run(main())
    assert out.decision == "deny" and out.approval.by.name == "alice" and out.reason.endswith(": not now")
    tail = env.hookd("tail", "--json", "--no-follow", "--point", POINT, "-n", "1")
    assert tail.returncode == 0, tail.stderr
    (event,) = [json.loads(line) for line in tail.stdout.splitlines()]
    assert event["decision"] == "deny" and event["payload"] == {"ask": True} and event["duration"] >= 0, event
