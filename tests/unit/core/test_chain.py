"""Seed 000's decision-chain rules, on the pure fold and through the engine."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hookd_client.messages import Decision

from hookd.core.chain import ChainState
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import Engine

CTX = CallContext("tool.approval.pre", "s1", None)


def hook(name: str, answer: Any = None, *, on_error: str = "continue", timeout: float = 5, seen: list | None = None) -> Hook:
    async def run(h: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        if seen is not None:
            seen.append((h.name, payload))
        if isinstance(answer, BaseException):
            raise answer
        if answer == "hang":
            await asyncio.sleep(3600)
        return answer

    return Hook(name, "tool.approval.pre", "decision", "global", "", f"/f/{name}", run, on_error=on_error, timeout=timeout)  # type: ignore[arg-type]


def decide(*hooks: Hook, payload: dict[str, Any] | None = None) -> ChainState:
    return asyncio.run(Engine().decide(Plan(tuple(hooks), ()), payload or {"args": {"command": "ls"}}, CTX))


def test_null_abstains_and_the_chain_ends_undecided():
    state = decide(hook("a"), hook("b"))
    out = state.outcome(1)
    assert out.decision is None and out.decided_by is None and out.errors == []


@pytest.mark.parametrize("final", ["allow", "deny", "ask"])
def test_final_decisions_stop_the_chain(final):
    seen: list = []
    state = decide(hook("a", Decision(final, reason="r"), seen=seen), hook("b", Decision("deny"), seen=seen))
    assert state.decision == final and state.reason == "r"
    assert state.decided_by is not None and state.decided_by.name == "a"
    assert [n for n, _ in seen] == ["a"]


def test_continue_rewrites_input_for_later_hooks_and_injections_join():
    seen: list = []
    state = decide(
        hook("a", Decision("continue", injection="one", modified_input={"command": "ls", "cwd": "/safe"}), seen=seen),
        hook("b", Decision(injection="two"), seen=seen),
        hook("c", Decision("deny", reason="no"), seen=seen),
    )
    assert seen[1][1]["args"] == {"command": "ls", "cwd": "/safe"}
    assert seen[2][1]["args"] == {"command": "ls", "cwd": "/safe"}
    out = state.outcome(9)
    assert out.injection == "one\n\ntwo"
    assert out.modified_input == {"command": "ls", "cwd": "/safe"}
    assert out.decision == "deny" and out.decided_by.name == "c"


def test_modified_output_is_seen_by_later_hooks_as_output():
    seen: list = []
    state = decide(hook("a", Decision("continue", modified_output={"title": "t"}), seen=seen), hook("b", seen=seen))
    assert seen[1][1]["output"] == {"title": "t"}
    assert state.outcome(1).modified_output == {"title": "t"}


def test_later_modification_wins():
    state = decide(hook("a", Decision(modified_input={"v": 1})), hook("b", Decision(modified_input={"v": 2})))
    assert state.modified_input == {"v": 2}


def test_error_counts_as_continue_and_is_listed():
    state = decide(hook("boom", RuntimeError("kaput")), hook("b", Decision("allow")))
    out = state.outcome(1)
    assert out.decision == "allow" and out.decided_by.name == "b"
    assert len(out.errors) == 1
    err = out.errors[0]
    assert err.hook.name == "boom" and err.code == "error" and "kaput" in err.message


def test_hook_failure_keeps_its_code():
    state = decide(hook("x", HookFailure("error", "exited with status 3")))
    assert state.errors[0].message == "exited with status 3"


def test_timeout_counts_as_continue():
    state = decide(hook("slow", "hang", timeout=0.05), hook("b", Decision("ask")))
    assert state.decision == "ask"
    assert state.errors[0].code == "timeout" and state.errors[0].hook.name == "slow"


@pytest.mark.parametrize("policy", ["deny", "ask"])
def test_on_error_policy_fails_closed(policy):
    seen: list = []
    state = decide(hook("guard", RuntimeError("crash"), on_error=policy), hook("b", Decision("allow"), seen=seen))
    assert state.decision == policy
    assert state.decided_by.name == "guard"
    assert "guard" in state.reason and "crash" in state.reason
    assert seen == []


def test_a_non_decision_answer_is_an_error():
    state = decide(hook("weird", {"decision": "allow"}))
    assert state.decision is None and "not a HookDecision" in state.errors[0].message


def test_observers_get_the_outcome_after_the_chain():
    got: list = []

    async def obs(h: Hook, payload: dict[str, Any], ctx: CallContext) -> None:
        got.append(payload)

    o = Hook("o", "tool.approval.pre", "observer", "global", "", "/f", obs)  # type: ignore[arg-type]

    async def run() -> None:
        engine = Engine()
        await engine.decide(Plan((hook("d", Decision("deny", reason="nope")),), (o,)), {"args": {}}, CTX)
        await engine.drain_observers(5)

    asyncio.run(run())
    assert got[0]["outcome"]["decision"] == "deny"
    assert got[0]["outcome"]["decidedBy"]["name"] == "d"


def test_failing_observer_never_reaches_the_emitter():
    async def bad(h: Hook, payload: dict[str, Any], ctx: CallContext) -> None:
        raise RuntimeError("observer crashed")

    o = Hook("o", "tool.execute.after", "observer", "global", "", "/f", bad)  # type: ignore[arg-type]

    async def run() -> tuple[Engine, list]:
        engine = Engine()
        tasks = engine.emit(Plan((), (o,)), {}, CTX)
        return engine, await asyncio.gather(*tasks)

    engine, results = asyncio.run(run())
    assert results[0].code == "error" and engine.counters.hook_errors == 1
