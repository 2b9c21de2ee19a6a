"""Hooks written for Claude Code, moved under hookd with `hookd import claude-code`, driven by the real
Claude Code CLI (offline, scripted model): each session runs once with the hooks in Claude Code's own
settings (Claude Code runs them) and once imported (hookd runs them behind `hookd bridge install`), and
Claude Code must act the same: the same commands denied or run, the same text reaching the model."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from ...conftest import Env, write_script
from .harness import ScriptedModel, require_claude, run_claude, text, tool, write_settings

pytestmark = pytest.mark.timeout(600)


def _denied(session: Any) -> list[str]:
    return [d.get("tool_input", {}).get("command", "") for d in session.json.get("permission_denials", [])]


class Twice:
    """One scenario, run directly and through hookd, each in its own HOME and project."""

    def __init__(self, env: Env, tmp_path: Path, daemon_factory: Any) -> None:
        require_claude()
        self.env = env
        self.tmp = tmp_path
        self.daemon_factory = daemon_factory

    def project(self, name: str) -> Path:
        project = self.tmp / name / "project"
        project.mkdir(parents=True, exist_ok=True)
        return project

    def direct(self, settings: dict[str, Any], steps: list[Any], project: Path, **kw: Any) -> tuple[Any, ScriptedModel]:
        home = self.tmp / "direct-home"
        write_settings(home, settings)
        with ScriptedModel(steps) as model:
            session = run_claude(model, home=home, cwd=project, **kw)
        return session, model

    def through_hookd(self, settings: dict[str, Any], steps: list[Any], project: Path, **kw: Any) -> tuple[Any, ScriptedModel]:
        path = write_settings(self.env.home, settings)
        r = self.env.hookd("import", "claude-code", str(path), "-o", str(self.env.config / "hookd" / "hooks.yaml"))
        assert r.returncode == 0, r.stderr
        assert "hooks" not in json.loads(path.read_text())  # moved: Claude Code no longer runs them itself
        self.daemon_factory()
        r = self.env.hookd("bridge", "install")
        assert r.returncode == 0, r.stderr
        with ScriptedModel(steps) as model:
            session = run_claude(model, home=self.env.home, cwd=project, **kw)
        return session, model


@pytest.fixture
def twice(env: Env, tmp_path: Path, daemon_factory: Any) -> Twice:
    return Twice(env, tmp_path, daemon_factory)


def test_imported_guards_combine_strictest_as_claude_code_does(twice: Twice, tmp_path: Path) -> None:
    # Two guards on every Bash call: one allows everything, one blocks rm with exit 2.
    allow_all = write_script(
        tmp_path / "allow_all.py",
        'import json\nprint(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))\n',
    )
    no_rm = write_script(
        tmp_path / "no_rm.py",
        """
        import json, sys
        command = json.load(sys.stdin)["tool_input"]["command"]
        if command.startswith("rm "):
            print("rm is not allowed here; move files to ./trash instead", file=sys.stderr)
            sys.exit(2)
        """,
    )
    hooks = [{"type": "command", "command": str(p)} for p in (allow_all, no_rm)]
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}}
    results = {}
    for name, run in (("direct", twice.direct), ("via-hookd", twice.through_hookd)):
        project = twice.project(name)
        (project / "victim").write_text("x")
        steps = [tool("Bash", {"command": "rm victim"}), tool("Bash", {"command": "echo kept > kept"}), text("done")]
        session, model = run(settings, steps, project)
        fed_back = any("move files to ./trash instead" in r for r in model.tool_results())
        results[name] = (_denied(session), (project / "victim").exists(), (project / "kept").exists(), fed_back)
    assert results["direct"] == (["rm victim"], True, True, True)
    assert results["via-hookd"] == results["direct"]


def test_imported_hooks_run_in_the_project_with_the_agents_path(twice: Twice, tmp_path: Path) -> None:
    # A guard found only on the PATH the agent runs with, and a relative hook path resolved in the project.
    tools = tmp_path / "agent-bin"
    write_script(
        tools / "no-touch-guard",
        """
        import json, sys
        command = json.load(sys.stdin)["tool_input"]["command"]
        if command.startswith("touch"):
            out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                   "permissionDecisionReason": "touch is reserved for the build"}}
            print(json.dumps(out))
        """,
    )
    settings = {
        "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "no-touch-guard"}]},
                {"matcher": "Bash", "hooks": [{"type": "command", "command": ".claude/hooks/log.sh"}]},
            ]
        }
    }
    agent_path = {"PATH": f"{tools}:{os.environ['PATH']}"}
    results = {}
    for name, run in (("direct", twice.direct), ("via-hookd", twice.through_hookd)):
        project = twice.project(name)
        log = project / ".claude" / "hooks" / "log.sh"
        log.parent.mkdir(parents=True)
        log.write_text('#!/bin/sh\ncat >/dev/null\necho "$PWD" >> calls.log\n')
        log.chmod(0o755)
        steps = [tool("Bash", {"command": "touch made"}), text("done")]
        session, model = run(settings, steps, project, env=agent_path)
        fed_back = any("touch is reserved for the build" in r for r in model.tool_results())
        logged = (project / "calls.log").read_text().split() if (project / "calls.log").exists() else []
        results[name] = (_denied(session), (project / "made").exists(), fed_back, logged == [str(project)])
    assert results["direct"] == (["touch made"], False, True, True)
    assert results["via-hookd"] == results["direct"]


def test_imported_context_hooks_reach_the_model(twice: Twice, tmp_path: Path) -> None:
    session_start = write_script(tmp_path / "start.py", "print('SESSION-FACT: the API is frozen until Friday')\n")
    prompt = write_script(
        tmp_path / "prompt.py",
        """
        import json
        out = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "PROMPT-FACT: use metric units"}}
        print(json.dumps(out))
        """,
    )
    settings = {
        "hooks": {
            "SessionStart": [{"hooks": [{"type": "command", "command": str(session_start)}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": str(prompt)}]}],
        }
    }
    results = {}
    for name, run in (("direct", twice.direct), ("via-hookd", twice.through_hookd)):
        _session, model = run(settings, [text("done")], twice.project(name))
        sent = json.dumps(model.main_requests())
        results[name] = ("SESSION-FACT: the API is frozen until Friday" in sent, "PROMPT-FACT: use metric units" in sent)
    assert results["direct"] == (True, True)
    assert results["via-hookd"] == results["direct"]


def test_an_imported_stop_hook_keeps_the_agent_going(twice: Twice, tmp_path: Path) -> None:
    stop = write_script(
        tmp_path / "stop.py",
        """
        import json, sys
        if not json.load(sys.stdin).get("stop_hook_active"):
            print(json.dumps({"decision": "block", "reason": "STOP-CHECK: run the linter first"}))
        """,
    )
    settings = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": str(stop)}]}]}}
    results = {}
    for name, run in (("direct", twice.direct), ("via-hookd", twice.through_hookd)):
        session, model = run(settings, [text("first answer"), text("second answer")], twice.project(name))
        told = "STOP-CHECK: run the linter first" in json.dumps(model.main_requests()[-1]["messages"])
        results[name] = (session.json["result"], told)
    assert results["direct"] == ("second answer", True)
    assert results["via-hookd"] == results["direct"]


def test_jq_is_there_for_the_hooks_that_need_it() -> None:
    # The corpus and these sessions use jq, as many published hooks do.
    assert shutil.which("jq") or not os.environ.get("CI")
