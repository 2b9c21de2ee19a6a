"""What a `hookd tail` line says, and what tail keeps: the guards of a decide that did not run, named
from the event's hook results (never from the payload an agent wrote); counts in the singular for one;
the --decision and --until filters of this side."""

from __future__ import annotations

import re

import pytest
from hookd_client.messages import Event, Gap, HookRef, HookRun
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.cli import tailfmt
from hookd.cli.tail_output import Matcher, Until, parse_decisions, parse_until

FILE = "/p/.hookd/hooks.yaml"


def _decide(hooks: list[HookRun], payload: dict | None = None, decision: str | None = None, errors: int = 0) -> Event:
    return Event(1, 0.0, "decide", "tool.approval.pre", "s1", payload=payload or {}, decision=decision, errors=errors, hooks=hooks)  # type: ignore[arg-type]


def _ref(name: str, scope: str = "project", source: str = FILE) -> HookRef:
    return HookRef(name, scope, source)  # type: ignore[arg-type]


def test_a_guard_that_did_not_run_is_named_with_its_reason() -> None:
    ev = _decide(
        [
            HookRun(_ref("no-rm"), skipped="untrusted", message="not trusted"),
            HookRun(_ref("*", source="/p/.hookd/hooks.d/10-net.yaml"), skipped="invalid_file"),
            HookRun(_ref("picky"), skipped="match"),  # its match filter left the call out: not a guard that failed to run
            HookRun(_ref("ran"), decision="allow", ms=1.0),
            HookRun(_ref("late"), skipped="decided"),
            HookRun(_ref("gone", "session", "session:s1"), skipped="disconnected"),
            HookRun(_ref("candidate"), skipped="untrusted", shadow=True),  # a shadow hook is never a guard
        ],
        decision="allow",
    )
    line = tailfmt.line(ev)
    named = "not run: no-rm (untrusted), every hook of /p/.hookd/hooks.d/10-net.yaml (invalid_file), gone (disconnected)"
    assert named in line, line
    assert tailfmt.not_run(ev) == ["no-rm (untrusted)", "every hook of /p/.hookd/hooks.d/10-net.yaml (invalid_file)", "gone (disconnected)"]
    assert line.index("allow") < line.index("not run")


def test_a_decide_whose_guards_all_ran_names_none_and_a_payload_cannot_forge_one() -> None:
    forged = {"toolName": "Bash", "outcome": {"notRun": [{"name": "imaginary", "reason": "untrusted"}]}, "not_run": ["x"]}
    ev = _decide([HookRun(_ref("ran"), decision="deny", ms=2.0)], forged, decision="deny")
    assert "not run" not in tailfmt.line(ev) and tailfmt.not_run(ev) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=20).filter(lambda s: s != "*"), min_size=1, max_size=4))
def test_hostile_guard_names_are_named_escaped(names: list[str]) -> None:
    ev = _decide([HookRun(_ref(name), skipped="not_loaded") for name in names])
    line = tailfmt.line(ev)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in line), repr(line)
    assert "not run: " in line and line.count("(not_loaded)") >= len(names)


def test_counts_are_singular_for_one() -> None:
    assert "1 hook error " in tailfmt.line(_decide([], errors=1)) + " "
    assert "2 hook errors" in tailfmt.line(_decide([], errors=2))
    one = tailfmt.gap_line(Gap(1, 5, 5, "history"))
    assert one == "-- 1 event (seq 5..5) is no longer in the daemon's memory --"
    assert tailfmt.gap_line(Gap(3, 5, 7, "history")) == "-- 3 events (seq 5..7) are no longer in the daemon's memory --"
    assert tailfmt.gap_line(Gap(1, 9, 9)) == "-- missed 1 event (seq 9..9): this reader fell behind --"
    assert tailfmt.gap_line(Gap(2, 9, 10)) == "-- missed 2 events (seq 9..10): this reader fell behind --"


def _ev(seq: int, kind: str = "decide", decision: str | None = None, at: float = 100.0) -> Event:
    return Event(seq, at, kind, "tool.approval.pre", decision=decision)  # type: ignore[arg-type]


def test_the_decision_filter_keeps_decides_with_those_decisions_only() -> None:
    kinds = parse_decisions(["deny", "ASK, none"])
    assert kinds == {"deny", "ask", "none"}
    match = Matcher([], [], [], kinds)
    events = [_ev(1, decision="deny"), _ev(2, decision="allow"), _ev(3), _ev(4, "emit"), _ev(5, "internal"), _ev(6, decision="ask")]
    assert [e.seq for e in events if match(e)] == [1, 3, 6]
    for bad in (["maybe"], ["deny,"], ["allow,nope"]):
        with pytest.raises(ValueError, match=re.escape("is not one of allow, deny, ask, continue, none")):
            parse_decisions(bad)


def test_until_ends_at_a_seq_or_a_time_and_never_before_since() -> None:
    by_seq = parse_until("7", None, now=1000.0)
    assert by_seq.seq == 7 and by_seq.time is None and by_seq
    assert not by_seq.after(_ev(7)) and by_seq.after(_ev(8))
    by_age = parse_until("90s", "1h", now=1000.0)
    assert by_age.seq is None and by_age.time == 910.0
    assert not by_age.after(_ev(1, at=910.0)) and by_age.after(_ev(2, at=910.5))
    assert not parse_until(None, "1h", now=1000.0) and not Until()
    match = Matcher(["tool.*"], [], [], until=by_seq)
    assert match(_ev(7)) and not match(_ev(8)) and not match.kept(_ev(8))
    with pytest.raises(ValueError, match="--until 2h ends before --since 1h starts"):
        parse_until("2h", "1h", now=1000.0)
    with pytest.raises(ValueError, match="--until 3 ends before --since 4 starts"):
        parse_until("3", "4", now=1000.0)
    with pytest.raises(ValueError, match="--until: "):
        parse_until("soon", None, now=1000.0)
