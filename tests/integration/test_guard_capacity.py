"""Guards keep their process slots: a flood of emits to a slow observer never makes a deny guard
time out, and a hook removed while a call was on its way never gets a worker started again."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from hookd_client import Client

from ..conftest import Env, write_script
from ..processes import gone_soon

POINT = "tool.approval.pre"
ENABLED = {"enabled": True}
DENY = 'cat >/dev/null; echo \'{"decision": "deny", "reason": "guarded"}\''


def wait_for(path: Path, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_a_burst_of_emits_to_a_slow_observer_never_lets_a_call_past_the_deny_guard(env: Env, daemon_factory) -> None:
    env.write_global_hooks(
        json.dumps(
            {
                "hooks": [
                    {"name": "slow", "point": POINT, "type": "observer", "command": "sleep", "args": ["120"], "timeout": 300} | ENABLED,
                    # Its timeout is short next to the observers' sleep: waiting behind them would make it time out.
                    {"name": "guard", "point": POINT, "type": "decision", "command": "/bin/sh", "args": ["-c", DENY], "timeout": 10}
                    | ENABLED,
                ]
            }
        )
    )
    daemon = daemon_factory()
    with daemon.client() as c:
        for n in range(1000):
            c.emit(POINT, {"n": n})
        outcomes = [c.decide(POINT, {"args": {"command": "rm -rf /"}}) for _ in range(20)]
    denied = [o for o in outcomes if o.decision == "deny" and o.reason == "guarded"]
    assert len(denied) == 20, [(o.decision, o.reason, o.errors) for o in outcomes if o not in denied]
    assert "observer calls shed" in daemon.log()  # past its queue, the flood was dropped and counted
    # ... and reported on the bus, where observers of the daemon see it.
    r = env.hookd("tail", "--no-follow", "-n", "10000", "--json", "--point", "hookd.hook.shed")
    shed = [json.loads(line)["payload"] for line in r.stdout.splitlines() if line.strip()]
    assert shed and shed[0]["hook"] == "slow" and shed[0]["shed"] > 0, r.stdout + r.stderr


def test_a_session_disposed_while_a_call_is_on_its_way_never_restarts_its_worker(env: Env, daemon, tmp_path: Path) -> None:
    started, go, worker_pids = tmp_path / "started", tmp_path / "go", tmp_path / "worker.pids"
    blocker = write_script(
        tmp_path / "blocker.py",
        f"""
        import os, time
        open({str(started)!r}, "w").close()
        while not os.path.exists({str(go)!r}):
            time.sleep(0.02)
        """,
    )
    worker = write_script(
        tmp_path / "worker.py",
        f"""
        import json, os, sys
        open({str(worker_pids)!r}, "a").write(f"{{os.getpid()}}\\n")
        for line in sys.stdin:
            print(json.dumps({{"id": json.loads(line)["id"], "decision": None}}), flush=True)
        """,
    )
    hooks: list[dict[str, Any]] = [
        {"name": "first", "point": POINT, "type": "decision", "command": str(blocker), "timeout": 60},
        {"name": "warm", "point": POINT, "type": "decision", "command": str(worker), "mode": "persistent", "timeout": 60},
    ]
    result: list[Any] = []
    with daemon.client() as c:
        c.attach_session("s1", hooks)

        def decide() -> None:
            with Client(daemon.socket) as other:
                result.append(other.decide(POINT, {}, session="s1"))

        call = threading.Thread(target=decide)
        call.start()
        wait_for(started)
        c.dispose_session("s1")
        go.touch()
        call.join(60)
        assert not call.is_alive() and result
        # Whether the call's lease let it run on the worker or it was refused, no worker outlives it.
        for pid in [int(p) for p in worker_pids.read_text().split()] if worker_pids.exists() else []:
            assert gone_soon(pid, 10), f"worker {pid} of a disposed session is still running"
        assert c.status().workers == []


def test_the_guard_and_its_reserve_are_documented() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "warm-hooks.md").read_text()
    assert "reserved_for_decisions" in text and "observer_queue" in text
