"""Groups of hooks: the strictest fold (pure), the engine running a group's members at once with leases
and not_run kept, the registry keeping a group together in scope order, the validator's group rules."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from hookd_client.messages import Decision, HookSpec

from hookd.config.validator import ConfigInvalid, validate
from hookd.core.chain import ChainState, Failed, HookNotRun, Skipped, merge_agent
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook, Plan, Registry
from hookd.engine.engine import Engine

CTX = CallContext("tool.approval.pre", "s1", None)


def spec(name: str, group: str | None = "g", combine: str | None = "strictest", **kw: Any) -> HookSpec:
    return msgspec.convert(
        {"name": name, "point": "tool.approval.pre", "type": "decision", "command": "x", "group": group, "combine": combine, **kw},
        HookSpec,
    )


class Runner:
    """Answers after every member of its group has started (so it proves they run at once), holding leases."""

    def __init__(self, answers: dict[str, Any], together: int = 0) -> None:
        self.answers = answers
        self.together = together
        self.started: list[str] = []
        self.all_started = asyncio.Event()
        self.holds = 0

    def lease(self, hook: Hook):  # type: ignore[no-untyped-def]
        self.holds += 1
        return lambda: setattr(self, "holds", self.holds - 1)

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        self.started.append(hook.name)
        if len(self.started) >= self.together:
            self.all_started.set()
        await asyncio.wait_for(self.all_started.wait(), 30)
        answer = self.answers.get(hook.name)
        if isinstance(answer, BaseException):
            raise answer
        return answer


def hook(name: str, runner: Any, group: str | None = "g", combine: str | None = "strictest", **kw: Any) -> Hook:
    on_error = kw.pop("on_error", "continue")
    return Hook(
        name, "tool.approval.pre", "decision", "global", "", "/f.yaml", runner, on_error=on_error, spec=spec(name, group, combine, **kw)
    )


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (["allow", "deny", "ask"], "deny"),
        (["allow", "ask"], "ask"),
        (["allow", None], "allow"),
        ([None, None], None),
    ],
)
def test_strictest_fold_takes_the_most_restrictive_answer(answers, expected) -> None:
    hooks = [hook(f"h{i}", None) for i in range(len(answers))]
    state = ChainState({"args": {"a": 1}})
    decided = state.fold_group(
        [(h, Decision(decision=a, reason=f"r{i}") if a else None) for i, (h, a) in enumerate(zip(hooks, answers, strict=True))]
    )
    assert decided == (expected is not None) and state.decision == expected
    if expected:
        assert state.reason == f"r{answers.index(expected)}"


def test_defer_ranks_between_deny_and_ask() -> None:
    a, b, c = hook("a", None), hook("b", None), hook("c", None)
    defer = Decision(decision="ask", agent_output={"defer": True})
    state = ChainState({})
    assert state.fold_group([(a, Decision(decision="ask")), (b, defer), (c, Decision(decision="allow"))])
    assert (state.decision, state.agent_output, state.decided_by.name) == ("ask", {"defer": True}, "b")
    state = ChainState({})
    assert state.fold_group([(a, defer), (b, Decision(decision="deny", reason="no"))])
    assert (state.decision, state.agent_output) == ("deny", None)


def test_a_failed_member_fails_closed_by_its_policy_and_others_are_kept() -> None:
    guard, ctx_hook = hook("guard", None, on_error="deny"), hook("ctx", None)
    state = ChainState({})
    decided = state.fold_group(
        [(ctx_hook, Decision(decision="allow", injection="hello")), (guard, Failed("timeout", "no answer within 1 s"))]
    )
    assert decided and state.decision == "deny" and state.decided_by.name == "guard"
    assert state.injections == ["hello"] and [e.code for e in state.errors] == ["timeout"]
    skipped = ChainState({})
    assert not skipped.fold_group([(hook("u", None, on_error="deny"), Skipped("untrusted", "not trusted"))])
    assert [n.reason for n in skipped.not_run] == ["untrusted"]


def test_agent_fields_merge() -> None:
    merged = merge_agent({"systemMessage": "a", "continue": True}, {"systemMessage": "b", "continue": False, "retry": True})
    assert merged == {"systemMessage": "a\nb", "continue": False, "retry": True}
    assert merge_agent({"updatedPermissions": [1]}, {"updatedPermissions": [2]}) == {"updatedPermissions": [1, 2]}


def test_engine_runs_a_strictest_group_at_once_then_goes_on() -> None:
    runner = Runner({"a": Decision(injection="one"), "b": Decision(injection="two")}, together=2)
    after = Runner({"c": Decision(decision="allow")})
    plan = Plan((hook("a", runner), hook("b", runner), hook("c", after, group=None, combine=None)), ())
    engine = Engine()
    leases = engine.lease(plan)
    assert runner.holds == 2
    out = asyncio.run(engine.decide(plan, {}, CTX, leases)).outcome(1)
    assert sorted(runner.started) == ["a", "b"] and out.injection == "one\n\ntwo"
    assert out.decision == "allow" and out.decided_by.name == "c"
    assert runner.holds == 0 and after.holds == 0


def test_engine_group_members_that_cannot_run_are_named() -> None:
    runner = Runner({"a": HookNotRun("worker_failed", "gave up"), "b": HookFailure("error", "boom")}, together=2)
    plan = Plan((hook("a", runner, on_error="ask"), hook("b", runner)), ())
    out = asyncio.run(Engine().decide(plan, {}, CTX)).outcome(1)
    assert out.decision == "ask" and out.decided_by.name == "a"
    assert [(n.hook.name, n.reason) for n in out.not_run] == [("a", "worker_failed")]
    assert [(e.hook.name, e.message) for e in out.errors] == [("b", "boom")]


def test_a_first_group_runs_as_the_plain_chain() -> None:
    runner = Runner({"a": Decision(decision="allow"), "b": Decision(decision="deny")})
    plan = Plan((hook("a", runner, combine="first"), hook("b", runner, combine="first")), ())
    out = asyncio.run(Engine().decide(plan, {}, CTX)).outcome(1)
    assert out.decision == "allow" and runner.started == ["a"]


def test_registry_keeps_a_group_together_at_its_first_members_place() -> None:
    reg = Registry()
    hooks = [
        hook("g-low", None, priority=-5),
        hook("solo", None, group=None, combine=None),
        hook("g-high", None),
    ]
    for h, priority in zip(hooks, (-5, 0, 10), strict=True):
        h.priority = priority
    reg.add(hooks)
    assert [h.name for h in reg.plan("tool.approval.pre", None, None).decisions] == ["g-high", "g-low", "solo"]


def test_validator_states_one_way_per_group() -> None:
    text = """
hooks:
  - {name: a, point: tool.approval.pre, type: decision, command: x, enabled: true, group: g, combine: strictest}
  - {name: b, point: tool.approval.pre, type: decision, command: x, enabled: true, group: g}
  - {name: c, point: tool.approval.pre, type: decision, command: x, enabled: true}
"""
    specs = validate(text, "f.yaml")
    assert [(s.group, s.combine) for s in specs] == [("g", "strictest"), ("g", "strictest"), (None, None)]
    bad = """
hooks:
  - {name: a, point: tool.approval.pre, type: decision, command: x, enabled: true, group: g, combine: strictest}
  - {name: b, point: tool.approval.pre, type: decision, command: x, enabled: true, group: g, combine: first}
  - {name: c, point: tool.approval.pre, type: decision, command: x, enabled: true, combine: strictest}
  - {name: d, point: tool.execute.after, type: observer, command: x, enabled: true, group: g}
  - {name: e, point: tool.approval.pre, type: decision, command: x, enabled: true, combine: strongest, group: h}
  - {name: f, point: tool.approval.pre, type: decision, command: x, enabled: true, format: claude-code, mode: persistent}
"""
    with pytest.raises(ConfigInvalid) as err:
        validate(bad, "f.yaml")
    text = "\n".join(str(p) for p in err.value.problems)
    assert "group 'g' is combined 'strictest'" in text and "line 3" in text
    assert "names no group" in text and "decision hooks only" in text
    assert "did you mean 'strictest'" in text and "cannot be persistent" in text
