"""Built-in hooks through the engine: the inline chain (Engine.decide_now, no task) and the general
one (Engine.decide) fold the same answers the same way, and a pack that raises is a failed hook
under its on_error on both, never a crash and never an allow."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from hookd_client.messages import Decision
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.core.matcher import compile_match
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import Engine
from hookd.guards.model import Finding
from hookd.runners.builtin import BuiltinRunner

CTX = CallContext("tool.approval.pre", "s1", "/work/app")


def boom(*_: Any) -> Finding | None:
    raise RuntimeError("the pack broke")


class Allow:
    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        return Decision(decision="allow", reason="later hook")


def builtin(name: str, packs: list[str], *, on_error: str = "continue", check: Any = None, options: Any = None, match: Any = None) -> Hook:
    runner = BuiltinRunner(packs, options, home="/home/u", check=check)
    return Hook(
        name, "tool.approval.pre", "decision", "global", "", f"/f/{name}", runner, on_error=on_error, matcher=compile_match(match or {})
    )  # type: ignore[arg-type]


def shell(command: str) -> dict[str, Any]:
    return {"toolName": "execute_command", "args": {"command": command}}


def both(plan: Plan, payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The outcome and hook results of the general chain and of the inline one, as plain data."""
    general = asyncio.run(Engine().decide(plan, payload, CTX))
    inline = Engine().decide_now(plan, payload, CTX)
    assert inline is not None
    return _plain(general), _plain(inline)


def _plain(state: Any) -> dict[str, Any]:
    out = msgspec.to_builtins(state.outcome(1))
    out["runs"] = [{k: v for k, v in msgspec.to_builtins(r).items() if k != "ms"} for r in state.runs]
    return out


@pytest.mark.parametrize("on_error", ["deny", "ask"])
def test_a_pack_that_raises_decides_by_on_error_on_both_paths(on_error: str) -> None:
    plan = Plan(
        (
            builtin("guards", ["git"], on_error=on_error, check=boom),
            Hook("later", "tool.approval.pre", "decision", "global", "", "/f/l", Allow()),
        ),
        (),
    )
    assert not plan.inline  # a hook that awaits: the general path
    general = asyncio.run(Engine().decide(plan, shell("ls"), CTX)).outcome(1)
    assert general.decision == on_error and general.decided_by is not None and general.decided_by.name == "guards"
    assert [e.message for e in general.errors] == ["RuntimeError: the pack broke"]
    alone = Plan((builtin("guards", ["git"], on_error=on_error, check=boom),), ())
    assert alone.inline
    engine = Engine()
    inline = engine.decide_now(alone, shell("ls"), CTX)
    assert inline is not None and inline.decision == on_error and "the pack broke" in (inline.reason or "")
    assert engine.counters.hook_errors == 1


def test_a_pack_that_raises_under_on_error_continue_lets_the_chain_go_on() -> None:
    plan = Plan((builtin("guards", ["git"], check=boom), builtin("more", ["git"])), ())
    general, inline = both(plan, shell("git reset --hard"))
    assert general == inline
    assert general["decision"] == "deny" and general["decided_by"]["name"] == "more"
    assert [e["message"] for e in general["errors"]] == ["RuntimeError: the pack broke"]


@pytest.mark.parametrize(
    "command",
    ["git reset --hard", "ls -la", "rm -rf /", "echo 'rm -rf /' >> notes.md", "git push --force origin main", "terraform destroy"],
)
def test_the_inline_chain_folds_exactly_as_the_general_one(command: str) -> None:
    plan = Plan(
        (
            builtin("only-writes", ["files"], match={"toolName": "^write_file$"}),
            builtin("git", ["git"], options={"ask": ["git.*"]}),
            builtin("rest", ["default"]),
        ),
        (),
    )
    assert plan.inline
    general, inline = both(plan, shell(command))
    assert general == inline
    assert general["runs"][0]["skipped"] == "match"


def test_a_plan_is_inline_only_when_every_decision_hook_answers_at_once() -> None:
    guard = builtin("guards", ["git"])
    other = Hook("cmd", "tool.approval.pre", "decision", "global", "", "/f/c", Allow())
    assert Plan((guard,), ()).inline
    assert not Plan((guard, other), ()).inline
    assert not Plan((), ()).inline
    assert not Plan((guard,), (), shadows=(builtin("s", ["git"]),)).inline
    assert not Plan((guard,), (), not_run=((other, "untrusted", "not trusted"),)).inline


def test_a_passed_deadline_leaves_the_call_to_the_general_path() -> None:
    import time

    ctx = CallContext("tool.approval.pre", "s1", None, deadline=time.monotonic() - 1)
    assert Engine().decide_now(Plan((builtin("guards", ["git"]),), ()), shell("ls"), ctx) is None


_text = st.text(max_size=60)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4),
    max_leaves=12,
)
_payloads = st.fixed_dictionaries(
    {},
    optional={
        "toolName": st.sampled_from(["execute_command", "write_file", "read_file", "edit_file"]) | _json,
        "args": st.fixed_dictionaries({}, optional={"command": _text | _json, "path": _text, "content": _text, "cwd": _json}) | _json,
        "cwd": _json,
        "hookInput": _json,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(payload=_payloads)
def test_whatever_an_agent_sends_both_paths_answer_alike_and_never_raise(payload: dict[str, Any]) -> None:
    plan = Plan((builtin("guards", ["default"], on_error="deny"),), ())
    general, inline = both(plan, payload)
    assert general == inline
    assert general.get("decision") in (None, "deny", "ask")
    if general.get("decision") is not None and not general.get("errors"):
        assert general["runs"][0]["rule"] and general["reason"].startswith(general["runs"][0]["rule"] + ": ")
