"""A hook's answer with a key HookDecision does not have is an error naming it, never an abstention:
a misspelt ``decison`` must not let the call through as if the guard had nothing to say. In process,
with real hook processes (spawned and warm). A client handler's answer: tests/integration/test_answer_keys.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..conftest import write_script
from .conftest import InProcess

POINT = "tool.approval.pre"

# Prints the answer the payload asks for, as a spawned command hook.
SPAWNED = """
import json, sys
print(json.dumps(json.load(sys.stdin)["answer"]))
"""

# Answers each request with the object the payload asks for, under the request's id.
WORKER = """
import json, os, sys
for line in sys.stdin:
    req = json.loads(line)
    answer = dict(req["payload"]["answer"], id=req["id"])
    if answer.get("pid"):
        answer = {"id": req["id"], "decision": {"decision": "allow", "reason": str(os.getpid())}}
    print(json.dumps(answer), flush=True)
"""


def hook(script: Path, **extra: Any) -> dict[str, Any]:
    return {"name": "guard", "point": POINT, "type": "decision", "command": str(script), "enabled": True, **extra}


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ({"decison": "deny", "reason": "typo"}, "unknown field `decison` (did you mean `decision`?)"),
        ({"decision": "deny", "modified_input": {"x": 1}}, "unknown field `modified_input` (did you mean `modifiedInput`?)"),
    ],
)
def test_a_spawned_hooks_unknown_key_is_an_error_under_on_error(in_process: Any, home: Path, answer: dict, named: str) -> None:
    script = write_script(home / "hook.py", SPAWNED)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("open", [hook(script)])
        await c.attach_session("closed", [hook(script, on_error="deny")])
        out = await c.decide(POINT, {"answer": answer}, session="open")
        assert out.decision is None  # on_error: continue, and it says why
        assert [(e.hook.name, e.code) for e in out.errors] == [("guard", "error")]
        assert named in out.errors[0].message and "not a HookDecision" in out.errors[0].message
        out = await c.decide(POINT, {"answer": answer}, session="closed")
        assert out.decision == "deny" and out.decided_by.name == "guard" and named in out.reason
        # The same hook with a well-formed answer still decides.
        assert (await c.decide(POINT, {"answer": {"decision": "deny"}}, session="open")).decision == "deny"

    in_process(scenario)


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        ({"decision": {"decison": "deny"}}, "unknown field `decison` (did you mean `decision`?)"),
        ({"decison": {"decision": "deny"}}, "the worker's answer has unknown field `decison`"),
    ],
)
def test_a_warm_workers_unknown_key_fails_that_call_only(in_process: Any, home: Path, answer: dict, named: str) -> None:
    script = write_script(home / "worker.py", WORKER)

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [hook(script, mode="persistent", on_error="deny")])
        first = await c.decide(POINT, {"answer": {"pid": True}}, session="s1")
        assert first.decision == "allow"
        out = await c.decide(POINT, {"answer": answer}, session="s1")  # the worker runs: the warm fast path
        assert out.decision == "deny" and out.decided_by.name == "guard"
        assert [e.code for e in out.errors] == ["error"] and named in out.errors[0].message
        again = await c.decide(POINT, {"answer": {"pid": True}}, session="s1")
        assert again.decision == "allow" and again.reason == first.reason  # the same worker serves on

    in_process(scenario)


def test_a_deny_printed_before_a_failing_exit_is_named_as_not_taken(in_process: Any, home: Path) -> None:
    script = write_script(home / "hook.py", 'import sys\nprint(\'{"decision": "deny"}\')\nsys.exit(1)\n')

    async def scenario(d: InProcess) -> None:
        c = d.client()
        await c.attach_session("s1", [hook(script)])
        out = await c.decide(POINT, {}, session="s1")
        assert out.decision is None and [e.code for e in out.errors] == ["error"]
        message = out.errors[0].message
        assert "exited with status 1" in message and 'not taken as its answer: {"decision": "deny"}' in message

    in_process(scenario)
