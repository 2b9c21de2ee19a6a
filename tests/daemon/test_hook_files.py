"""User hook files as the daemon runs their hooks, in process with real YAML and real hook processes:
trust for CI, match before any process starts, working directories, timeout with on_error, and a
session hook's match checked on attach. Live reload, toggles and trust across restarts, and the CLI:
tests/integration/test_user_config.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hookd_client import HookdError

from ..conftest import write_script
from ..integration.test_user_config import POINT, deny_hook, hooks_file, write_project
from .conftest import InProcess


async def reason(d: InProcess, project: Path | None = None) -> str | None:
    return (await d.client().decide(POINT, {"toolName": "bash"}, project=str(project) if project else None)).reason


def test_trust_all_for_ci(in_process: Any, home: Path, trust_all: None) -> None:
    project = home / "proj"
    write_project(project, hooks_file(deny_hook("guard", "v1")))

    async def scenario(d: InProcess) -> None:
        assert await reason(d, project) == "v1"
        assert (await d.client().list_hooks(str(project))).hooks[0].trust == "HOOKD_TRUST_ALL=1"

    in_process(scenario)


def test_a_failing_match_starts_no_process(in_process: Any, home: Path) -> None:
    runs = home / "runs"
    counter = write_script(
        home / "count.py",
        f"""
        import sys
        sys.stdin.read()
        with open({str(runs)!r}, "a") as f:
            f.write(sys.argv[1] + "\\n")
        """,
    )

    async def scenario(d: InProcess) -> None:
        d.global_hooks(
            f"""\
            hooks:
              - name: watch-bash
                point: tool.execute.after
                type: observer
                command: {counter}
                args: [observer]
                match: {{toolName: "^execute_command$", args.command: "git push"}}
                enabled: true
              - name: gate-bash
                point: {POINT}
                type: decision
                command: {counter}
                args: [decision]
                match: {{toolName: "^execute_command$"}}
                enabled: true
            """
        )
        c = d.client()
        for payload in ({"toolName": "read_file"}, {"toolName": "execute_command", "args": {"command": "ls"}}, {}):
            assert (await c.emit("tool.execute.after", payload, wait=True)).observers == 0
        assert (await c.decide(POINT, {"toolName": "write_file"})).errors == []
        assert not runs.exists()  # no process was started at all
        git_push = {"toolName": "execute_command", "args": {"command": "git push"}}
        assert (await c.emit("tool.execute.after", git_push, wait=True)).observers == 1
        await c.decide(POINT, {"toolName": "execute_command"})

    in_process(scenario)
    assert runs.read_text().splitlines() == ["observer", "decision"]


def test_cwd_defaults_and_relative_cwd(in_process: Any, home: Path, trust_all: None) -> None:
    project = home / "proj"
    (project / "sub").mkdir(parents=True)
    where = write_script(
        home / "where.py",
        """
        import json, os, sys
        sys.stdin.read()
        print(json.dumps({"decision": "deny", "reason": os.getcwd()}))
        """,
    )

    def entry(name: str, extra: str = "") -> str:
        return f"hooks:\n  - {{name: {name}, point: {POINT}, type: decision, command: {where}, enabled: true{extra}}}\n"

    async def scenario(d: InProcess) -> None:
        d.global_hooks(entry("g"))
        c = d.client()
        assert await reason(d, project) == str(home / "home")  # global hooks: the home directory
        write_project(project, entry("p"))
        await c.reload_user_hooks(str(project))
        assert await reason(d, project) == str(project)  # project hooks: the project directory
        write_project(project, entry("p", ", cwd: sub"))
        await c.reload_user_hooks(str(project))
        assert await reason(d, project) == str(project / "sub")
        write_project(project, entry("p", ", cwd: missing"))
        await c.reload_user_hooks(str(project))
        outcome = await c.decide(POINT, {}, project=str(project))
        assert "working directory does not exist" in outcome.errors[0].message

    in_process(scenario)


def test_timeout_and_on_error(in_process: Any) -> None:
    async def scenario(d: InProcess) -> Any:
        d.global_hooks(
            f"""\
            hooks:
              - name: slow
                point: {POINT}
                type: decision
                command: /bin/sleep
                args: ["20"]
                timeout: 0.3
                on_error: deny
                enabled: true
            """
        )
        return await d.client().decide(POINT, {})

    outcome = in_process(scenario)
    assert outcome.decision == "deny" and "timeout" in outcome.reason and outcome.decided_by.name == "slow"


def test_session_hooks_may_use_match(in_process: Any) -> None:
    async def scenario(d: InProcess) -> None:
        spec = {"name": "m", "point": POINT, "type": "decision", "command": "/bin/true", "enabled": True, "match": {"x": "("}}
        with pytest.raises(HookdError, match="not a valid regular expression"):
            await d.client().attach_session("s1", [spec])

    in_process(scenario)
