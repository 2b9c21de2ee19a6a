"""Emit and decide through the daemon's dispatch, in process: the plan of every scope, the chain's
fold, and what a guard that cannot run answers. Hooks are real: YAML files and subprocesses."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from hookd_client import messages as m

from .conftest import InProcess

GUARD = textwrap.dedent(
    """\
    hooks:
      - name: no-rm-rf
        point: tool.approval.pre
        type: decision
        enabled: true
        match: {toolName: "^execute_command$", args.command: "rm -rf"}
        command: sh
        args: ["-c", "echo '{\\"decision\\": \\"deny\\", \\"reason\\": \\"no rm -rf\\"}'"]
    """
)


def write_global(home: Path, text: str) -> None:
    path = home / "config" / "hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def shell(command: str) -> dict[str, Any]:
    return {"toolName": "execute_command", "args": {"command": command}}


def test_a_decide_with_no_hooks_is_an_empty_outcome(in_process: Any) -> None:
    async def scenario(d: InProcess) -> m.Reply:
        return await d.call(m.Decide(d.id(), "tool.approval.pre", shell("ls")))

    reply = in_process(scenario)
    assert isinstance(reply, m.Outcome) and reply.decision is None


def test_a_global_guard_from_yaml_denies_what_it_matches_and_only_that(in_process: Any, home: Path) -> None:
    write_global(home, GUARD)

    async def scenario(d: InProcess) -> tuple[m.Reply, m.Reply]:
        d.daemon.files.load_global_now()
        denied = await d.call(m.Decide(d.id(), "tool.approval.pre", shell("rm -rf build")))
        allowed = await d.call(m.Decide(d.id(), "tool.approval.pre", shell("ls")))
        return denied, allowed

    denied, allowed = in_process(scenario)
    assert isinstance(denied, m.Outcome) and denied.decision == "deny" and denied.reason == "no rm -rf"
    assert denied.decided_by is not None and denied.decided_by.name == "no-rm-rf"
    assert isinstance(allowed, m.Outcome) and allowed.decision is None


def test_a_session_guard_runs_before_the_global_one(in_process: Any, home: Path) -> None:
    write_global(home, GUARD)
    allow = m.HookSpec(
        "let-rm", "tool.approval.pre", "decision", "sh", args=["-c", 'echo \'{"decision": "allow", "reason": "session says yes"}\'']
    )

    async def scenario(d: InProcess) -> m.Reply:
        d.daemon.files.load_global_now()
        attached = await d.call(m.AttachSession(d.id(), "s1", hooks=[allow]))
        assert isinstance(attached, m.Reply) and not isinstance(attached, m.Error), attached
        return await d.call(m.Decide(d.id(), "tool.approval.pre", shell("rm -rf build"), session="s1"))

    reply = in_process(scenario)
    assert isinstance(reply, m.Outcome) and reply.decision == "allow" and reply.reason == "session says yes"
    assert reply.decided_by is not None and (reply.decided_by.name, reply.decided_by.scope) == ("let-rm", "session")


def test_a_guard_that_fails_denies_under_its_on_error(in_process: Any, home: Path) -> None:
    write_global(
        home,
        textwrap.dedent(
            """\
            hooks:
              - name: broken-guard
                point: tool.approval.pre
                type: decision
                enabled: true
                on_error: deny
                command: sh
                args: ["-c", "exit 3"]
            """
        ),
    )

    async def scenario(d: InProcess) -> m.Reply:
        d.daemon.files.load_global_now()
        return await d.call(m.Decide(d.id(), "tool.approval.pre", shell("ls")))

    reply = in_process(scenario)
    assert isinstance(reply, m.Outcome) and reply.decision == "deny"
    assert "broken-guard" in (reply.reason or "")
    assert [e.hook.name for e in reply.errors] == ["broken-guard"]


def test_a_decide_on_an_observer_point_is_refused_by_name(in_process: Any) -> None:
    async def scenario(d: InProcess) -> m.Reply:
        return await d.call(m.Decide(d.id(), "tool.approval.post", {}))

    reply = in_process(scenario)
    assert isinstance(reply, m.Error) and reply.code == m.ErrorCode.WRONG_KIND and "tool.approval.post" in reply.message
