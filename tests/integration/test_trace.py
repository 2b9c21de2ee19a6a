"""`hookd decide --trace` through a real daemon with real YAML and real subprocess hooks: each hook as it
went, as text and in --json, and a call with no hooks. The trace itself (inputs as each hook saw them,
answers, excerpts, why a hook did not run): tests/daemon/test_trace.py."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import Env, write_script

REWRITE = """
import json, sys
payload = json.load(sys.stdin)
args = dict(payload["args"], command=payload["args"]["command"].replace("rm -rf", "rm -ri"))
sys.stderr.write("rewrote the command\\n")
print(json.dumps({"modifiedInput": args}))
"""
GUARD = """
import json, sys
payload = json.load(sys.stdin)
sys.stderr.write("checking " + payload["args"]["command"] + "\\n")
if payload["args"]["command"].startswith("rm"):
    print(json.dumps({"decision": "deny", "reason": "no rm at all"}))
"""
LOUD = "import sys\nsys.stdin.read()\nsys.stderr.write('x' * 100000)\n"


def _setup(env: Env, tmp_path: Path) -> None:
    rewrite = write_script(tmp_path / "rewrite.py", REWRITE)
    guard = write_script(tmp_path / "guard.py", GUARD)
    loud = write_script(tmp_path / "loud.py", LOUD)
    env.write_global_hooks(
        f"""
        hooks:
          - {{name: rewrite, point: tool.approval.pre, type: decision, command: {rewrite}, enabled: true, priority: 30}}
          - {{name: only-edits, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 25,
              match: {{toolName: Edit}}}}
          - {{name: turned-off, point: tool.approval.pre, type: decision, command: {guard}, enabled: false, priority: 22}}
          - {{name: loud, point: tool.approval.pre, type: decision, command: {loud}, enabled: true, priority: 21}}
          - {{name: guard, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 20}}
          - {{name: after, point: tool.approval.pre, type: decision, command: {guard}, enabled: true, priority: 10}}
        """
    )


PAYLOAD = {"toolName": "Bash", "args": {"command": "rm -rf /tmp/x"}}


def test_hookd_decide_trace_as_text_and_json(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon_factory()
    text = env.hookd("decide", "tool.approval.pre", "--trace", "--payload", json.dumps(PAYLOAD))
    assert text.returncode == 0, text.stderr
    out = text.stdout
    assert out.startswith("tool.approval.pre: deny by 'guard' [global]: no rm at all\n")
    assert "1. rewrite  [decision, global]" in out and "stderr: rewrote the command" in out
    assert 'answered: {"decision": "deny", "reason": "no rm at all"}' in out
    assert "not run: match (match toolName" in out and "not run: decided" in out and "not run: disabled" in out
    js = env.hookd("decide", "tool.approval.pre", "--trace", "--json", "--payload", json.dumps(PAYLOAD))
    assert js.returncode == 0, js.stderr
    data = json.loads(js.stdout)
    assert data["decision"] == "deny" and [e["hook"]["name"] for e in data["trace"]][:2] == ["rewrite", "only-edits"]


def test_hookd_decide_trace_of_a_call_with_no_hooks(env: Env, daemon_factory) -> None:
    daemon_factory()
    r = env.hookd("decide", "tool.approval.pre", "--trace")
    assert "no hook is configured for this call" in r.stdout
