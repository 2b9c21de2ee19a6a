"""`hookd decide` and `hookd explain` take the project as `check` and `doctor` do: the current directory,
unless --project names another; --global leaves every project's hooks out; --session alone takes the
session's own project. Real daemon, real CLI run from the directory a user would run it in."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from hookd_client import Client

from ..conftest import HOOKD, Env, write_script

GUARD = """
hooks:
  - name: {name}
    point: tool.approval.pre
    type: decision
    command: {script}
    enabled: true
"""


def _project(tmp_path: Path, name: str) -> Path:
    script = write_script(tmp_path / f"{name}.py", f'print(\'{{"decision": "deny", "reason": "{name} says no"}}\')\n')
    project = tmp_path / name
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(GUARD.format(name=f"{name}-guard", script=script))
    return project


def _hookd(env: Env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOKD, *args], env=env.env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_decide_and_explain_use_the_project_they_run_in(env: Env, daemon_factory, tmp_path: Path) -> None:
    here, other = _project(tmp_path, "here"), _project(tmp_path, "other")
    daemon_factory()
    inside = here / ".hookd"  # a subdirectory is not a project of its own: -p names the project's root

    r = _hookd(env, here, "decide", "tool.approval.pre", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["decision"] == "deny" and out["decided_by"]["name"] == "here-guard", out

    r = _hookd(env, here, "explain", "tool.approval.pre")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"tool.approval.pre  (project {here})"
    assert "here-guard" in r.stdout and "other-guard" not in r.stdout
    explained = json.loads(_hookd(env, here, "explain", "tool.approval.pre", "--json").stdout)
    assert [h["name"] for h in explained["decision_hooks"]] == ["here-guard"]

    # --project overrides the current directory, relative to it as `check -p` reads it.
    r = _hookd(env, here, "decide", "tool.approval.pre", "-p", "../other", "--json")
    assert json.loads(r.stdout)["decided_by"]["name"] == "other-guard", r.stdout
    r = _hookd(env, inside, "explain", "tool.approval.pre", "--project", str(other), "--json")
    assert [h["name"] for h in json.loads(r.stdout)["decision_hooks"]] == ["other-guard"]

    # --global: the global hooks alone, wherever it runs.
    r = _hookd(env, here, "decide", "tool.approval.pre", "--global", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"decision": None, "not_run": []}
    r = _hookd(env, here, "explain", "tool.approval.pre", "--global")
    assert r.stdout.splitlines()[0] == "tool.approval.pre  (no project)" and "here-guard" not in r.stdout
    r = _hookd(env, here, "decide", "tool.approval.pre", "--global", "-p", str(other))
    assert r.returncode == 2 and "not allowed with argument" in r.stderr


def test_a_session_alone_keeps_its_own_project(env: Env, daemon_factory, tmp_path: Path) -> None:
    here, other = _project(tmp_path, "here"), _project(tmp_path, "other")
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        c.attach_session("s1", [], project=str(other))
        # From `here`, the session's calls still get its own project's guard, as its agent's calls do.
        r = _hookd(env, here, "decide", "tool.approval.pre", "-s", "s1", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["decided_by"]["name"] == "other-guard", r.stdout
        r = _hookd(env, here, "explain", "tool.approval.pre", "-s", "s1", "--json")
        assert [h["name"] for h in json.loads(r.stdout)["decision_hooks"]] == ["other-guard"]
        # --global cannot drop a session's project: said so, not done halfway.
        r = _hookd(env, here, "decide", "tool.approval.pre", "-s", "s1", "--global")
        assert r.returncode == 2 and "--global and --session cannot go together" in r.stderr and r.stdout == ""
