"""Seed 000's three usage examples, as real command hooks in real YAML files,
end to end through a real daemon: token estimate observer, dangerous-command
deny, argument rewrite with continue + modifiedInput."""

from __future__ import annotations

import json
import time

from hookd_client import Client

from ..conftest import write_script


def test_seed_examples_end_to_end(env, daemon_factory, tmp_path):
    log = tmp_path / "tokens.log"
    token = write_script(
        tmp_path / "token_estimate.py",
        f"""
        import json, sys
        p = json.load(sys.stdin)
        tokens = round(len(json.dumps(p["messages"])) / 4)
        open({str(log)!r}, "a").write(f"[Hook] about to call the LLM, about {{tokens}} tokens\\n")
        """,
    )
    deny = write_script(
        tmp_path / "check_command.py",
        """
        import json, os, sys
        p = json.load(sys.stdin)
        blocked = os.environ["BLOCKED"].split(",")
        if p.get("toolName") == "execute_command":
            command = p.get("args", {}).get("command", "")
            if any(b in command for b in blocked):
                print(json.dumps({"decision": "deny", "reason": "recursive force delete is forbidden"}))
        """,
    )
    rewrite = write_script(
        tmp_path / "force_cwd.py",
        """
        import json, sys
        p = json.load(sys.stdin)
        if p.get("toolName") == "execute_command":
            print(json.dumps({"decision": "continue", "modifiedInput": {**p["args"], "cwd": "/safe/directory"}}))
        """,
    )
    env.write_global_hooks(
        f"""
        hooks:
          - name: log-llm-calls
            description: token estimate of every LLM call
            point: llm.request.before
            type: observer
            command: {token}
            priority: 10
            enabled: true
          - name: block-dangerous-commands
            point: tool.approval.pre
            type: decision
            command: {deny}
            env:
              BLOCKED: "rm -rf,mkfs"
            priority: 100
            enabled: true
          - name: force-safe-cwd
            point: tool.approval.pre
            type: decision
            command: {rewrite}
            priority: 50
            enabled: true
        """
    )
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        accepted = c.emit("llm.request.before", {"messages": [{"role": "user", "content": "x" * 400}]}, wait=True)
        assert accepted.observers == 1 and accepted.errors == []
        assert "about 108 tokens" in log.read_text()

        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "rm -rf /"}})
        assert out.decision == "deny" and out.reason == "recursive force delete is forbidden"
        assert out.decided_by.name == "block-dangerous-commands" and out.decided_by.scope == "global"
        assert out.decided_by.source.endswith("hookd/hooks.yaml")

        out = c.decide("tool.approval.pre", {"toolName": "execute_command", "args": {"command": "ls"}})
        assert out.decision is None
        assert out.modified_input == {"command": "ls", "cwd": "/safe/directory"}

        chain = c.explain("tool.approval.pre")
        assert [e.name for e in chain.decision_hooks] == ["block-dangerous-commands", "force-safe-cwd"]

    r = env.hookd("decide", "tool.approval.pre", "--payload", '{"toolName": "execute_command", "args": {"command": "rm -rf ~"}}')
    assert r.returncode == 0
    assert json.loads(r.stdout)["decision"] == "deny"
    assert time.time()
