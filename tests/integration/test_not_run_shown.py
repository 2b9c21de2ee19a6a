"""A guard that did not run is named where the user looks: `hookd decide` and the Claude Code bridge."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import Env, write_script


def _untrusted_project_guard(env: Env, tmp_path: Path) -> Path:
    env.env.pop("HOOKD_TRUST_ALL", None)
    project = tmp_path / "repo"
    guard = write_script(project / "guard.py", 'print(\'{"decision": "deny", "reason": "no"}\')\n')
    (project / ".hookd").mkdir()
    (project / ".hookd" / "hooks.yaml").write_text(
        f"hooks:\n  - name: no-rm\n    point: tool.approval.pre\n    type: decision\n    command: {guard}\n    enabled: true\n"
    )
    return project


def test_decide_and_the_bridge_name_an_untrusted_guard(env: Env, daemon_factory, tmp_path: Path) -> None:
    project = _untrusted_project_guard(env, tmp_path)
    daemon_factory()
    r = env.hookd("decide", "tool.approval.pre", "--project", str(project), "--payload", '{"toolName": "Bash"}')
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert "not_run" in out  # always present, so a script can rely on it
    # The daemon has named untrusted guards in not_run for a long while: an empty list is a guard that did not
    # run and was not named (it looks like an allow), never a reason to skip.
    assert out["not_run"], out
    assert out["decision"] is None
    assert [n["hook"]["name"] for n in out["not_run"]] == ["no-rm"] and out["not_run"][0]["reason"] == "untrusted"
    assert "hookd: guard 'no-rm' did not run: untrusted" in r.stderr

    data = {"hook_event_name": "PreToolUse", "session_id": "nr1", "cwd": str(project), "tool_name": "Bash", "tool_input": {}}
    r = env.hookd("bridge", "claude-code", input=json.dumps(data))
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    assert "hookd: guard 'no-rm' did not run: untrusted" in answer["systemMessage"]
    assert "permissionDecision" not in answer.get("hookSpecificOutput", {})


def test_explain_names_an_untrusted_guard_once(env: Env, daemon_factory, tmp_path: Path) -> None:
    project = _untrusted_project_guard(env, tmp_path)
    daemon_factory()
    r = env.hookd("explain", "tool.approval.pre", "-p", str(project), "--payload", '{"toolName": "Bash"}')
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if "no-rm" in line)
    assert row.split()[0] == "untrusted" and "(untrusted: `hookd hooks` says why)" in row and "not trusted" not in row, row


def test_tail_names_the_guard_that_did_not_run_on_the_calls_line(env: Env, daemon_factory, tmp_path: Path) -> None:
    project = _untrusted_project_guard(env, tmp_path)
    daemon_factory()
    r = env.hookd("decide", "tool.approval.pre", "-p", str(project), "-s", "nr2", "--payload", '{"toolName": "Bash"}')
    assert r.returncode == 0 and json.loads(r.stdout)["not_run"], r.stdout
    r = env.hookd("tail", "--no-follow", "--point", "tool.approval.pre", "--session", "nr2")
    assert r.returncode == 0, r.stderr
    [line] = r.stdout.splitlines()
    assert "no decision not run: no-rm (untrusted)" in line, line
    assert line.index("not run") < line.index("Bash")  # with the verdict, before the payload a narrow terminal cuts
    # Once trusted, it runs: the line names nothing as not run.
    assert env.hookd("trust", str(project)).returncode == 0
    env.hookd("decide", "tool.approval.pre", "-p", str(project), "-s", "nr2", "--payload", '{"toolName": "Bash"}')
    r = env.hookd("tail", "--no-follow", "--point", "tool.approval.pre", "--session", "nr2", "-n", "1")
    assert "deny (no) by no-rm" in r.stdout and "not run" not in r.stdout, r.stdout
