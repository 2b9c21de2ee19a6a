"""`hookd decide/emit/explain --project DIR`, and emit on a decision point. A directory that does not exist is a usage error
naming it (a misspelt project would leave its guards out of the call without a word), and a
relative one is the directory it names from where the command runs. Real daemon, real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..conftest import HOOKD, Env, write_script

GUARD = """
hooks:
  - name: pguard
    point: tool.approval.pre
    type: decision
    command: {script}
    enabled: true
"""


def test_a_missing_project_is_refused_and_a_relative_one_is_resolved(env: Env, daemon_factory, tmp_path: Path) -> None:
    script = write_script(tmp_path / "deny.py", 'print(\'{"decision": "deny", "reason": "no"}\')\n')
    project = tmp_path / "proj"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(GUARD.format(script=script))
    daemon_factory()
    assert env.hookd("trust", str(project)).returncode == 0
    missing = tmp_path / "projx"
    for command in (["decide", "tool.approval.pre"], ["emit", "custom.x"], ["explain", "tool.approval.pre"]):
        r = env.hookd(*command, "--project", str(missing))
        assert r.returncode == 2, (command, r.stdout, r.stderr)
        assert f"hookd: --project {missing}: {missing} does not exist" in r.stderr
        assert r.stdout == ""
    r = env.hookd("decide", "tool.approval.pre", "--project", str(script))
    assert r.returncode == 2 and "is not a directory" in r.stderr
    # Relative: from the directory the command runs in, as `hookd check -p` reads it.
    argv = [*HOOKD, "decide", "tool.approval.pre", "-p", "proj", "--json"]
    r = subprocess.run(argv, env=env.env, cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["decision"] == "deny" and out["decided_by"]["name"] == "pguard"


def test_an_emit_names_the_decision_hooks_it_did_not_ask(env: Env, daemon_factory, tmp_path: Path) -> None:
    script = write_script(tmp_path / "deny.py", 'print(\'{"decision": "deny", "reason": "no"}\')\n')
    env.write_global_hooks(GUARD.format(script=script).replace("pguard", "guard"))
    daemon_factory()
    r = env.hookd("emit", "tool.approval.pre", "--payload", '{"toolName": "Bash"}')
    assert r.returncode == 0 and json.loads(r.stdout) == {"observers": 0, "errors": []}
    assert "hookd: emit runs observers only; the decision hooks of tool.approval.pre were not asked (guard)" in r.stderr
    quiet = env.hookd("emit", "tool.approval.pre", "--json")
    assert quiet.returncode == 0 and quiet.stderr == ""
    # A decision point without decision hooks (emitted as a matter of course), and an observer point: no note.
    for point in ("tool.execute.after", "session.save.after"):
        plain = env.hookd("emit", point)
        assert plain.returncode == 0 and plain.stderr == "", (point, plain.stderr)
