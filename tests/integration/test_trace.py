"""`decide` with `trace`, on a real daemon with real YAML and real subprocess hooks: each hook's input
as it saw it (after earlier rewrites), its answer, excerpts of its output, its time, and why any hook
did not run; `hookd decide --trace` shows it as text and in --json."""

from __future__ import annotations

import json
from pathlib import Path

from hookd_client.messages.observe import TRACE_EXCERPT

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


def test_a_trace_shows_each_hook_as_it_went(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        plain = c.decide("tool.approval.pre", PAYLOAD)
        out = c.decide("tool.approval.pre", PAYLOAD, trace=True)
    assert plain.trace is None  # asked for per call
    assert (out.decision, out.reason, out.decided_by.name) == (plain.decision, plain.reason, plain.decided_by.name)
    assert out.decision == "deny" and out.decided_by.name == "guard"
    entries = {e.hook.name: e for e in out.trace}
    assert [e.hook.name for e in out.trace] == ["rewrite", "only-edits", "loud", "guard", "after", "turned-off"]
    rewrite, skipped, loud, guard, after, off = (entries[n] for n in ("rewrite", "only-edits", "loud", "guard", "after", "turned-off"))
    assert rewrite.input == PAYLOAD and rewrite.answer.modified_input == {"command": "rm -ri /tmp/x"}
    assert rewrite.stderr == "rewrote the command\n" and "modifiedInput" in rewrite.stdout and rewrite.ms > 0
    # Later hooks see the rewritten input.
    assert guard.input["args"]["command"] == "rm -ri /tmp/x"
    assert (guard.answer.decision, guard.answer.reason) == ("deny", "no rm at all")
    assert guard.stderr == "checking rm -ri /tmp/x\n"
    assert (skipped.skipped, skipped.answer) == ("match", None)
    assert "match toolName" in skipped.why and "got 'Bash'" in skipped.why
    assert after.skipped == "decided" and "'guard'" in after.why and after.input is None
    assert off.skipped == "disabled"
    # Output excerpts are bounded, and say how much was cut.
    assert loud.answer is None and loud.stderr.startswith("x" * 100)
    assert len(loud.stderr) < TRACE_EXCERPT + 100 and "more bytes not shown]" in loud.stderr


def test_a_failed_hook_and_an_untrusted_one_in_the_trace(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.env.pop("HOOKD_TRUST_ALL", None)
    project = tmp_path / "repo"
    guard = write_script(project / "guard.py", 'print(\'{"decision": "deny"}\')\n')
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - {{name: project-guard, point: tool.approval.pre, type: decision, command: {guard}, enabled: true}}\n"
    )
    broken = write_script(tmp_path / "broken.py", "import sys\nprint('half an answer {')\nsys.exit(3)\n")
    env.write_global_hooks(f"hooks:\n  - {{name: broken, point: tool.approval.pre, type: decision, command: {broken}, enabled: true}}\n")
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide("tool.approval.pre", PAYLOAD, project=str(project), trace=True)
    entries = {e.hook.name: e for e in out.trace}
    assert entries["project-guard"].skipped == "untrusted" and entries["project-guard"].why
    assert [n.hook.name for n in out.not_run] == ["project-guard"]
    b = entries["broken"]
    assert b.error == "error" and "exited with status 3" in b.message and b.stdout == "half an answer {\n"


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


def test_a_trace_of_a_call_with_no_hooks(env: Env, daemon_factory) -> None:
    daemon = daemon_factory()
    with daemon.client() as c:
        out = c.decide("tool.approval.pre", PAYLOAD, trace=True)
    assert out.decision is None and out.trace == []
    r = env.hookd("decide", "tool.approval.pre", "--trace")
    assert "no hook is configured for this call" in r.stdout


def test_a_large_input_is_named_not_repeated_in_the_trace(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    big = {"toolName": "Bash", "args": {"command": "ls " + "x" * 300_000}}
    with daemon.client() as c:
        out = c.decide("tool.approval.pre", big, trace=True)
    assert out.decision is None and [e.hook.name for e in out.trace][:2] == ["rewrite", "only-edits"]
    for entry in out.trace:
        if entry.input is not None:
            (note,) = entry.input.values()
            assert "over the 65536 a trace shows" in note
