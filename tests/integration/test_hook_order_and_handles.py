"""Order within an attach list whose handlers a client serves, and handles across daemon lifetimes.
Hook failures seen by `event` observers: tests/daemon/test_events.py."""

from __future__ import annotations

import json

import pytest
from hookd_client import Client, HookdError, callback

from .test_user_config import POINT


def test_equal_priority_hooks_of_one_attach_list_run_in_list_order_whatever_was_attached_before(daemon):
    deny = {"name": "guard", "point": POINT, "type": "decision", "command": "/bin/sh", "enabled": True}
    deny["args"] = ["-c", "cat >/dev/null; echo '" + json.dumps({"decision": "deny", "reason": "guard"}) + "'"]
    with Client(daemon.socket) as c:
        c.attach_session("earlier", [callback(POINT, lambda p: None)])  # this client attached handlers before
        c.attach_session("s2", [deny, callback(POINT, lambda p: {"decision": "allow", "reason": "handler"})])
        chain = c.explain(POINT, session="s2")
        assert chain.decision_hooks[0].name == "guard"
        out = c.decide(POINT, {}, session="s2")
    assert out.decision == "deny" and out.reason == "guard"


def test_a_handle_from_an_earlier_daemon_names_no_hook_of_this_one(env, daemon_factory):
    spec = {"name": "g", "point": POINT, "type": "decision", "command": "/bin/true", "enabled": True}
    first = daemon_factory()
    with first.client() as c:
        old = c.register(spec)
    assert first.stop() == 0
    second = daemon_factory()
    with second.client() as c:
        new = c.register(spec)
        assert new != old
        with pytest.raises(HookdError) as caught:
            c.unregister(old)
        assert caught.value.code == "not_found"
        assert [h.name for h in c.list_hooks().hooks] == ["g"]
