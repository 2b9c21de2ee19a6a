"""The client's record of sessions and handlers, and how a handler's answer becomes a result."""

from __future__ import annotations

import asyncio

import msgspec
import pytest
from hookd_client import messages as m
from hookd_client.callbacks import Book, as_decision, callback, run_async, run_sync
from hookd_client.errors import HookdError
from hookd_client.messages.base import DECISION_FIELDS
from hypothesis import given
from hypothesis import strategies as st

POINT = "tool.approval.pre"
SPEC = {"name": "cmd", "point": POINT, "type": "decision", "command": "/bin/true", "enabled": True}


def invoke(cb: int, payload: dict, kind: str = "decision") -> m.Invoke:
    return m.Invoke(call=7, cb=cb, point=POINT, hook="h", kind=kind, payload=payload, session="s1")  # type: ignore[arg-type]


def test_a_mixed_list_keeps_its_order_and_only_uses_attach_hooks_when_needed():
    book = Book()
    hooks = [SPEC, callback(POINT, lambda p: None, priority=3), m.HookSpec("b", POINT, "decision", "x")]
    entries = [book.entry_for(h) for h in hooks]
    assert [type(e).__name__ for e in entries] == ["CommandEntry", "CallbackEntry", "CommandEntry"]
    assert isinstance(book.attach_request(1, "s", None, entries), m.AttachHooks)
    assert isinstance(book.attach_request(2, "s", None, [entries[0], entries[2]]), m.AttachSession)
    assert entries[1].spec.priority == 3 and entries[1].spec.cb in book.served


def test_handler_mappings_and_errors():
    book = Book()
    entry = book.entry_for({"name": "g", "point": POINT, "type": "observer", "handler": print, "enabled": True})
    assert isinstance(entry, m.CallbackEntry) and entry.spec.type == "observer" and entry.spec.name == "g"
    with pytest.raises(TypeError, match="needs a point"):
        book.entry_for(print)
    with pytest.raises(msgspec.ValidationError):
        book.entry_for({"name": "bad"})


def test_restore_replays_sessions_in_order_and_maps_new_handles():
    book = Book()
    entries = [book.entry_for(SPEC), book.entry_for(callback(POINT, lambda p: None))]
    handles = book.on_attached("s1", "/p", entries)(m.Attached(1, "s1", ["h1", "h2"]))
    assert handles == ["h1", "h2"]
    book.on_attached("s2", None, [book.entry_for(SPEC)])(m.Attached(2, "s2", ["h3"]))
    (r1, r2) = book.restore_requests(iter([10, 11]))
    assert (r1.id, r1.session, r1.project, r1.fresh, r1.hooks) == (10, "s1", "/p", True, entries)
    assert (r2.session, len(r2.hooks)) == ("s2", 1)
    assert book.restored(r1, m.Attached(10, "s1", ["h9", "h10"])) is None
    assert book.current("h2") == "h10" and book.current("unknown") == "unknown"
    err = book.restored(r2, m.Error(11, "limit_exceeded", "too many"))
    assert isinstance(err, HookdError) and "s2" in err.message


def test_a_refused_attach_records_nothing():
    book = Book()
    entries = [book.entry_for(callback(POINT, lambda p: None))]
    with pytest.raises(HookdError):
        book.on_attached("s1", None, entries)(m.Error(1, "limit_exceeded", "no"))
    assert book.sessions == {} and book.served == {}


def test_forgetting_a_handle_or_a_session_stops_serving_it():
    book = Book()
    entries = [book.entry_for(callback(POINT, lambda p: None)), book.entry_for(callback(POINT, lambda p: None))]
    book.on_attached("s1", None, entries)(m.Attached(1, "s1", ["h1", "h2"]))
    book.forget_handle("h1")
    assert list(book.served) == [entries[1].spec.cb]
    assert [e.handle for e in book.sessions["s1"].entries] == ["h2"]
    book.forget_session("s1")
    assert book.served == {} and book.sessions == {} and book.restore_requests(iter([1])) == []


def test_handlers_answers():
    book = Book()
    plain = book.entry_for(callback(POINT, lambda p: {"decision": "deny", "modifiedInput": {"a": p["x"]}}))
    with_ctx = book.entry_for(callback(POINT, lambda p, ctx: {"reason": f"{ctx.session}:{ctx.point}"}))
    boom = book.entry_for(callback(POINT, lambda p: 1 / 0))

    async def coro(p: dict) -> None:
        await asyncio.sleep(0)
        return None

    co = book.entry_for(callback(POINT, coro))
    r = run_sync(book.served[plain.spec.cb], invoke(plain.spec.cb, {"x": 1}))
    assert r == m.InvokeResult(7, m.Decision("deny", modified_input={"a": 1}))
    assert run_sync(book.served[with_ctx.spec.cb], invoke(with_ctx.spec.cb, {})).decision.reason == f"s1:{POINT}"
    err = run_sync(book.served[boom.spec.cb], invoke(boom.spec.cb, {}))
    assert err.decision is None and err.error.startswith("ZeroDivisionError")
    assert book.served[co.spec.cb].is_async
    assert asyncio.run(run_async(book.served[co.spec.cb], invoke(co.spec.cb, {}))) == m.InvokeResult(7)
    # an observer's return value is ignored
    assert run_sync(book.served[plain.spec.cb], invoke(plain.spec.cb, {"x": 1}, "observer")) == m.InvokeResult(7)


@given(st.one_of(st.none(), st.integers(), st.text(), st.lists(st.integers()), st.dictionaries(st.text(), st.integers())))
def test_as_decision_accepts_only_decision_shapes(value):
    try:
        result = as_decision(value)
    except (TypeError, msgspec.ValidationError):
        assert value is not None
        return
    except ValueError as exc:  # a key HookDecision does not have, named
        assert isinstance(value, dict) and not DECISION_FIELDS.issuperset(value)
        assert "unknown field" in str(exc)
        return
    assert result is None or isinstance(result, m.Decision)
    assert not isinstance(value, dict) or DECISION_FIELDS.issuperset(value)


def test_after_a_restart_held_handles_map_to_the_new_daemons_or_fail_clearly():
    book = Book()
    book.on_attached("s1", None, [book.entry_for(SPEC), book.entry_for(SPEC)])(m.Attached(1, "s1", ["h1", "h2"]))
    book.on_attached("s2", None, [book.entry_for(SPEC)])(m.Attached(2, "s2", ["h3"]))
    registered = book.on_registered(100, "h4")
    r1, r2 = book.restore_requests(iter([10, 11]))
    # The new daemon (pid 200) took the first handles for another client's hooks.
    assert book.restored(r1, m.Attached(10, "s1", ["h7", "h8"])) is None
    assert isinstance(book.restored(r2, m.Error(11, "limit_exceeded", "too many sessions")), HookdError)
    # The new daemon hands out "h1" again: the caller gets an alias, both handles stay distinct.
    (fresh,) = book.on_attached("s3", None, [book.entry_for(SPEC)])(m.Attached(12, "s3", ["h1"]))
    assert fresh != "h1" and fresh.startswith("h1~")
    assert book.unregister_target("h1", 200) == "h7"
    assert book.unregister_target("h1", 200) == "h7"  # a retry on a new connection maps the same way
    book.forget("h1")
    assert book.unregister_target(fresh, 200) == "h1"
    for gone in ("h3", registered):  # s2 was not restored; h4 belonged to the old daemon
        with pytest.raises(HookdError) as caught:
            book.unregister_target(gone, 200)
        assert caught.value.code == "stale_handle" and "nothing was removed" in caught.value.message
    assert book.unregister_target("h2", 200) == "h8"
    assert book.unregister_target("h9", 200) == "h9"  # not this client's: passed through as given


def test_a_handle_registered_with_this_daemon_stays_valid():
    book = Book()
    mine = book.on_registered(100, "h1")
    assert book.unregister_target(mine, 100) == "h1"
    book.forget(mine)
    assert book.unregister_target(mine, 200) == "h1"  # forgotten: passed through as given
