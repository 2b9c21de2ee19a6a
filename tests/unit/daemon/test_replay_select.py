"""Which journaled calls a replay takes, how then and now are compared, and `hookd replay`'s range argument."""

from __future__ import annotations

import pytest
from hookd_client import messages as m
from hypothesis import given
from hypothesis import strategies as st

from hookd.cli.replay import seq_range
from hookd.core.chain import ChainState
from hookd.daemon.replay import Selection, compare, decides
from hookd.events.eventcodec import UNENCODABLE

GUARD = m.HookRef("guard", "global", "/h.yaml")
OTHER = m.HookRef("other", "project", "/p/.hookd/hooks.yaml")


def ev(seq: int, point: str = "tool.approval.pre", kind: str = "decide", session: str | None = None, **kw) -> m.Event:  # type: ignore[no-untyped-def]
    return m.Event(seq, 1000.0 + seq, kind, point, session, None, {"n": seq}, **kw)


def test_decides_takes_only_decide_calls_in_the_range_and_filters():
    events = [
        ev(1),
        ev(2, kind="emit", point="tool.approval.post"),
        ev(3, kind="internal", point="hookd.hook.error"),
        ev(4, session="s1"),
        ev(5, point="tool.execute.before", session="s2"),
        ev(6),
    ]
    seqs = lambda sel: [e.seq for e in decides(events, sel)]  # noqa: E731
    assert seqs(Selection()) == [1, 4, 5, 6]
    assert seqs(Selection(first=4, last=5)) == [4, 5]
    assert seqs(Selection(first=5)) == [5, 6]
    assert seqs(Selection(last=4)) == [1, 4]
    assert seqs(Selection(points=("tool.execute.*",))) == [5]
    assert seqs(Selection(sessions=("s1", "s2"))) == [4, 5]
    assert seqs(Selection(points=("tool.approval.pre",), sessions=("s2",))) == []


def test_an_unencodable_decide_is_yielded_for_counting_and_other_markers_are_not():
    marker = ev(7, kind="internal", point=UNENCODABLE)
    marker.payload = {"point": "tool.approval.pre", "kind": "decide", "reason": "bad"}
    emit_marker = ev(8, kind="internal", point=UNENCODABLE)
    emit_marker.payload = {"point": "tool.approval.post", "kind": "emit", "reason": "bad"}
    assert [e.seq for e in decides([marker, emit_marker], Selection())] == [7]
    assert [e.seq for e in decides([marker], Selection(points=("tool.execute.*",)))] == []


def test_compare_names_what_changed_and_the_hooks_behind_it():
    then = ev(1, decision="deny", reason="no", decided_by=GUARD)
    now = ChainState({}, decision="allow", reason="ok", decided_by=OTHER)
    call = compare(then, now, [])
    assert call.differs and call.changed == ["decision", "reason", "decided_by"]
    assert call.hooks == [GUARD, OTHER]

    same = compare(
        ev(2, decision="deny", reason="no", decided_by=GUARD), ChainState({}, decision="deny", reason="no", decided_by=GUARD), []
    )
    assert not same.differs and same.changed == [] and same.hooks == []

    reworded = compare(
        ev(3, decision="deny", reason="no", decided_by=GUARD), ChainState({}, decision="deny", reason="nope", decided_by=GUARD), []
    )
    assert not reworded.differs and reworded.changed == ["reason"] and reworded.hooks == [GUARD]

    now_decides = compare(ev(4), ChainState({}, decision="ask", decided_by=GUARD), [])
    assert now_decides.differs and now_decides.hooks == [GUARD] and now_decides.then == m.Verdict()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("42", (42, 42)), ("40..60", (40, 60)), ("40..", (40, None)), ("..60", (None, 60)), ("0", (0, 0)), (None, (None, None))],
)
def test_seq_range(text, expected):  # type: ignore[no-untyped-def]
    assert seq_range(text) == expected


@pytest.mark.parametrize("text", ["x", "-1", "9..3", "1..2..3", "1.5", "", "..-4", "a..b"])
def test_a_bad_range_is_a_value_error_naming_it(text):  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"seq|range"):
        seq_range(text)


@given(st.text(max_size=40))
def test_seq_range_never_fails_otherwise(text):  # type: ignore[no-untyped-def]
    try:
        first, last = seq_range(text)
    except ValueError:
        return
    assert first is None or first >= 0
    assert last is None or last >= 0
    assert first is None or last is None or first <= last
