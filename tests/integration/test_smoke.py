"""The README's promise, end to end: a real daemon, the client and the CLI."""

from __future__ import annotations

import json
import sys

from hookd_client import Client

from ..conftest import write_script


def test_emit_and_decide_from_the_cli(env, daemon):
    r = env.hookd("emit", "tool.execute.after", "--session", "s1", "--payload", '{"toolName": "read"}')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["observers"] == 0
    r = env.hookd("decide", "tool.approval.pre", "--session", "s1", "--payload", '{"toolName": "read"}')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["decision"] is None


def test_client_attaches_a_session_with_a_command_hook_and_decides(env, daemon, tmp_path):
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
        c.attach_session(
            "s1",
            [{"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": str(guard), "enabled": True}],
        )
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "rm -rf /"}}, session="s1")
        assert out.decision == "deny"
        assert out.reason == "no recursive force delete"
        assert out.decided_by.name == "guard" and out.decided_by.scope == "session"
        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "ls"}}, session="s1")
        assert out.decision is None
    assert sys.executable
