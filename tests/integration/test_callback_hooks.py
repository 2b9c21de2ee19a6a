"""Handlers served by the client's own code: a real daemon, this test process as the agent."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from hookd_client import Client, HookdError, InvokeContext, callback

from ..conftest import write_script

POINT = "tool.approval.pre"
RECORDER = """
import json, os, sys
payload = json.load(sys.stdin)
with open(os.environ["ORDER"], "a") as f:
    f.write(os.environ["NAME"] + " " + json.dumps(payload.get("args")) + "\\n")
sys.stdout.write(os.environ.get("ANSWER", ""))
"""


def command(name: str, script: Path, order: Path, answer: dict | None = None, priority: int = 0) -> dict:
    env = {"NAME": name, "ORDER": str(order)}
    if answer is not None:
        env["ANSWER"] = json.dumps(answer)
    return {"name": name, "point": POINT, "type": "decision", "command": str(script), "env": env, "priority": priority, "enabled": True}


def record(order: Path, name: str, payload: dict) -> None:
    with order.open("a") as f:
        f.write(f"{name} {json.dumps(payload.get('args'))}\n")


def lines(order: Path) -> list[str]:
    return order.read_text().splitlines() if order.exists() else []


@pytest.fixture
def setup(env, daemon_factory, tmp_path):  # type: ignore[no-untyped-def]
    """A global and a project command hook around a session that mixes command hooks and handlers."""
    script = write_script(tmp_path / "recorder.py", RECORDER)
    order = tmp_path / "order.txt"
    project = tmp_path / "repo"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(
        json.dumps({"hooks": [command("project-allow", script, order, {"decision": "allow", "reason": "project says yes"}, 50)]})
    )
    env.write_global_hooks(json.dumps({"hooks": [command("global-deny", script, order, {"decision": "deny", "reason": "global"}, 999)]}))
    daemon = daemon_factory()
    return daemon, script, order, project


def test_handlers_and_command_hooks_run_in_engine_order(setup):  # type: ignore[no-untyped-def]
    daemon, script, order, project = setup

    def rewrite(payload: dict) -> dict:
        record(order, "cb-rewrite", payload)
        return {"decision": "continue", "injection": "rewritten", "modifiedInput": {"command": "ls -la", "cwd": "/safe"}}

    def gate(payload: dict, ctx: InvokeContext) -> dict | None:
        record(order, "cb-gate", payload)
        assert ctx.point == POINT and ctx.session == "s1" and ctx.kind == "decision"
        if "rm" in payload["args"]["command"]:
            return {"decision": "deny", "reason": "gate saw rm"}
        return None

    with Client(daemon.socket) as c:
        handles = c.attach_session(
            "s1",
            [
                callback(POINT, gate, priority=1),
                command("cmd-mid", script, order, {"decision": "continue", "injection": "mid"}, priority=5),
                {"name": "rewrite", "point": POINT, "type": "decision", "handler": rewrite, "priority": 10},
            ],
            project=str(project),
        )
        assert len(handles) == 3
        chain = c.explain(POINT, session="s1")
        assert [(e.name, e.scope) for e in chain.decision_hooks] == [
            ("rewrite", "session"),
            ("cmd-mid", "session"),
            ("test_handlers_and_command_hooks_run_in_engine_order.<locals>.gate", "session"),
            ("project-allow", "project"),
            ("global-deny", "global"),
        ]

        out = c.decide(POINT, {"toolName": "execute_command", "args": {"command": "make"}}, session="s1")
        # rewrite's modifiedInput is what every later hook sees; the project hook's allow is final.
        assert lines(order) == [
            'cb-rewrite {"command": "make"}',
            'cmd-mid {"command": "ls -la", "cwd": "/safe"}',
            'cb-gate {"command": "ls -la", "cwd": "/safe"}',
            'project-allow {"command": "ls -la", "cwd": "/safe"}',
        ]
        assert out.decision == "allow" and out.reason == "project says yes"
        assert out.decided_by.name == "project-allow" and out.decided_by.scope == "project"
        assert out.modified_input == {"command": "ls -la", "cwd": "/safe"}
        assert out.injection == "rewritten\n\nmid"
        assert out.errors == []

    order.unlink()
    with Client(daemon.socket) as c:
        # A new connection: the first one's handlers went with it, its command hook stays (grace period).
        c.register_decision(POINT, lambda p: {"decision": "continue", "modifiedInput": {"command": "rm -rf /"}}, session="s1", priority=20)
        c.register_decision(POINT, gate, session="s1", priority=3)
        out = c.decide(POINT, {"toolName": "execute_command", "args": {"command": "make"}}, session="s1")
        assert out.decision == "deny" and out.reason == "gate saw rm"
        assert out.decided_by.scope == "session" and out.decided_by.source.startswith("client:")
        assert [line.split()[0] for line in lines(order)] == ["cmd-mid", "cb-gate"]


def test_observer_handler_sees_emits_and_decided_points(daemon):  # type: ignore[no-untyped-def]
    seen: list[tuple[str, dict]] = []
    with Client(daemon.socket) as c:
        sub = c.register("tool.execute.after", lambda p, ctx: seen.append((ctx.point, p)), session="s1")
        accepted = c.emit("tool.execute.after", {"toolName": "read", "duration": 3}, session="s1", wait=True)
        assert accepted.observers == 1 and accepted.errors == []
        assert seen == [("tool.execute.after", {"toolName": "read", "duration": 3})]
        assert c.emit("tool.execute.after", {}, session="other", wait=True).observers == 0
        sub.unsubscribe()
        assert c.emit("tool.execute.after", {}, session="s1", wait=True).observers == 0
        assert len(seen) == 1


def test_a_hanging_handler_times_out_and_the_next_call_is_fine(daemon):  # type: ignore[no-untyped-def]
    release = threading.Event()
    calls = []

    def slow(payload: dict) -> dict:
        calls.append(payload["n"])
        if payload["n"] == 1:
            release.wait(30)
        return {"decision": "deny", "reason": f"n={payload['n']}"}

    with Client(daemon.socket) as c:
        c.register_decision(POINT, slow, session="s1", timeout=0.5, name="slow")
        out = c.decide(POINT, {"n": 1}, session="s1")
        assert out.decision is None
        assert [(e.code, e.hook.name) for e in out.errors] == [("timeout", "slow")]
        # The first handler still hangs in its thread: the next invocation must not queue behind it.
        out = c.decide(POINT, {"n": 2}, session="s1")
        assert out.decision == "deny" and out.reason == "n=2" and out.errors == []
        release.set()
        assert c.decide(POINT, {"n": 3}, session="s1").reason == "n=3"
        assert calls == [1, 2, 3]


def test_a_handler_that_raises_is_reported_and_on_error_applies(daemon):  # type: ignore[no-untyped-def]
    def broken(payload: dict) -> dict:
        raise ValueError("bad payload shape")

    with Client(daemon.socket) as c:
        c.register_decision(POINT, broken, session="s1", name="broken")
        c.register_decision(POINT, lambda p: "not a decision", session="s1", name="wrong-type", priority=-1)
        out = c.decide(POINT, {}, session="s1")
        assert out.decision is None
        assert [(e.hook.name, e.code) for e in out.errors] == [("broken", "error"), ("wrong-type", "error")]
        assert "ValueError: bad payload shape" in out.errors[0].message
        assert "must return a Decision" in out.errors[1].message
        c.register_decision(POINT, broken, session="s2", name="strict", on_error="deny")
        out = c.decide(POINT, {}, session="s2")
        assert out.decision == "deny" and "bad payload shape" in out.reason
        assert c.status().pid == daemon.proc.pid  # the daemon kept serving


def test_a_handler_may_call_the_client_itself(daemon):  # type: ignore[no-untyped-def]
    with Client(daemon.socket) as c:
        c.register_decision("custom.inner", lambda p: {"decision": "deny", "reason": "inner"}, session="s1")

        def outer(payload: dict) -> dict:
            inner = c.decide("custom.inner", {}, session="s1")
            c.emit("tool.execute.after", {"from": "handler"}, session="s1")
            return {"decision": "allow", "reason": f"inner said {inner.decision}"}

        c.register_decision("custom.outer", outer, session="s1")
        threads = [threading.Thread(target=lambda: results.append(c.decide("custom.outer", {}, session="s1").reason)) for _ in range(8)]
        results: list[str] = []
        for t in threads:
            t.start()
        results.append(c.decide("custom.outer", {}, session="s1").reason)
        for t in threads:
            t.join(30)
        assert results == ["inner said deny"] * 9


def test_async_handlers_on_the_sync_client(daemon):  # type: ignore[no-untyped-def]
    async def later(payload: dict) -> dict:
        await asyncio.sleep(0.01)
        return {"decision": "ask", "reason": "async"}

    with Client(daemon.socket) as c:
        c.register_decision(POINT, later, session="s1")
        assert c.decide(POINT, {}, session="s1").decision == "ask"


def test_bad_registrations_get_clear_errors_and_change_nothing(daemon):  # type: ignore[no-untyped-def]
    with Client(daemon.socket) as c:
        with pytest.raises(HookdError) as err:
            c.register_decision("tool.execute.error", lambda p: None, session="s1")
        assert err.value.code == "wrong_kind"
        with pytest.raises(HookdError) as err:
            c.register_decision("tool.aproval.pre", lambda p: None, session="s1")
        assert err.value.code == "unknown_point" and "tool.approval.pre" in err.value.message
        with pytest.raises(TypeError, match="session"):
            c.register_decision(POINT, lambda p: None, session=None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="needs a point"):
            c.attach_session("s1", [lambda p: None])
        assert c._book.served == {} and c._book.sessions == {}
        assert c.explain(POINT, session="s1").decision_hooks == []
