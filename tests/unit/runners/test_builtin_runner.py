"""The built-in runner (hookd/runners/builtin.py): what it hands the packs of a call (the canonical
tool and arguments, the working directory, the project, the home) and what it makes of their finding."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from hookd.core.registry import CallContext, Hook
from hookd.guards.check import check
from hookd.guards.model import DEFAULT, Context, Finding
from hookd.guards.options import OptionsError
from hookd.guards.policy import Policy
from hookd.runners.builtin import BuiltinRunner

CTX = CallContext("tool.approval.pre", "s1", "/work/app")


def hook(runner: BuiltinRunner) -> Hook:
    return Hook("guards", "tool.approval.pre", "decision", "global", "", "/f/hooks.yaml", runner)


class Seen:
    """The packs' check, recorded: what the runner handed them (the real packs answer behind it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, packs: Any, tool: str, args: Any, ctx: Context, policy: Policy) -> Finding | None:
        self.calls.append((tuple(packs), tool, dict(args), ctx, policy))
        return check(packs, tool, args, ctx, policy)


def test_a_dangerous_shell_command_is_denied_with_its_rule_first_in_the_reason() -> None:
    runner = BuiltinRunner(["git"], None, home="/home/u")
    answer = runner.answer_now(hook(runner), {"toolName": "execute_command", "args": {"command": "git reset --hard"}}, CTX)
    assert answer is not None and answer.decision == "deny" and answer.rule == "git.reset-hard"
    assert answer.reason is not None and answer.reason.startswith("git.reset-hard: ")


def test_the_coroutine_gives_the_same_answer_as_answer_now() -> None:
    runner = BuiltinRunner(["default"], {"ask": ["git.*"]}, home="/home/u")
    payload = {"toolName": "execute_command", "args": {"command": "git reset --hard"}}
    now = runner.answer_now(hook(runner), payload, CTX)
    later = asyncio.run(runner(hook(runner), payload, CTX))
    assert now == later and now is not None and now.decision == "ask"


@pytest.mark.parametrize(
    ("payload", "cwd"),
    [
        ({"toolName": "execute_command", "args": {"command": "ls", "cwd": "/work/app/src"}, "cwd": "/elsewhere"}, "/work/app/src"),
        ({"toolName": "execute_command", "args": {"command": "ls"}, "cwd": "/work/app/lib"}, "/work/app/lib"),
        ({"toolName": "execute_command", "args": {"command": "ls"}, "hookInput": {"cwd": "/work/app/t"}}, "/work/app/t"),
        ({"toolName": "execute_command", "args": {"command": "ls"}}, None),
    ],
)
def test_the_packs_get_the_tool_args_cwd_project_and_home(payload: dict[str, Any], cwd: str | None) -> None:
    seen = Seen()
    runner = BuiltinRunner(["files", "git"], {"protected_branches": ["release"]}, home="/home/u", check=seen)
    assert runner.answer_now(hook(runner), payload, CTX) is None
    [(packs, tool, args, ctx, policy)] = seen.calls
    assert packs == ("files", "git") and tool == "execute_command" and args == payload["args"]
    assert ctx == Context(cwd, "/work/app", "/home/u")
    assert policy.protected_branches == ("release",)


def test_default_is_every_pack_once_in_pack_order() -> None:
    assert BuiltinRunner(["default", "git"], None).packs == DEFAULT
    assert BuiltinRunner(["git", "default"], None).packs[0] == "git"


@pytest.mark.parametrize("payload", [{}, {"toolName": 3}, {"prompt": "rm -rf /"}])
def test_a_call_that_is_not_a_tool_call_is_left_alone(payload: dict[str, Any]) -> None:
    seen = Seen()
    runner = BuiltinRunner(["default"], None, check=seen)
    assert runner.answer_now(hook(runner), payload, CTX) is None and not seen.calls


def test_arguments_that_are_not_a_mapping_reach_the_packs_as_an_empty_mapping() -> None:
    seen = Seen()
    runner = BuiltinRunner(["default"], None, check=seen)
    assert runner.answer_now(hook(runner), {"toolName": "execute_command", "args": "rm -rf /"}, CTX) is None
    assert seen.calls[0][2] == {}


@pytest.mark.parametrize(("packs", "options"), [(["gti"], None), (["git"], {"allow": ["git.nope"]}), (["git"], {"colour": "red"})])
def test_a_bad_pack_or_option_is_refused_when_the_hook_is_made(packs: list[str], options: Any) -> None:
    with pytest.raises(OptionsError):
        BuiltinRunner(packs, options)
