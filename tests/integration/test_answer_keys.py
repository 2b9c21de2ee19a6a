"""A hook's answer with a key HookDecision does not have is an error naming it, never an abstention:
a misspelt ``decison`` must not let the call through as if the guard had nothing to say. Real
daemon, real client handlers. Spawned and warm hooks' answers, in process:
tests/daemon/test_answer_keys.py."""

from __future__ import annotations

from hookd_client import Client

POINT = "tool.approval.pre"


def test_a_client_handlers_unknown_key_is_an_error(daemon) -> None:  # type: ignore[no-untyped-def]
    with Client(daemon.socket) as c:
        c.register_decision(POINT, lambda p: {"decison": "deny"}, session="s1", name="typo", timeout=10)
        c.register_decision(POINT, lambda p: {"Decision": "deny"}, session="s2", name="strict", on_error="deny", timeout=10)
        out = c.decide(POINT, {}, session="s1")
        assert out.decision is None and [(e.hook.name, e.code) for e in out.errors] == [("typo", "error")]
        assert "unknown field `decison` (did you mean `decision`?)" in out.errors[0].message
        out = c.decide(POINT, {}, session="s2")
        assert out.decision == "deny" and "unknown field `Decision`" in out.reason
