"""What an agent waited for a decide, as the dashboard tells it: the chain's time, plus the
approval the call waited for, paired by the approval's events; hostile events change nothing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.dashboard.waits import KEPT, Waits


def internal(name: str, session: str | None = None, **payload: Any) -> dict[str, Any]:
    return {"kind": "internal", "point": name, "session": session, "project": None, "payload": payload}


def decide(decision: str | None, reason: str | None, duration: float | None, session: str | None = "s1") -> dict[str, Any]:
    return {
        "kind": "decide",
        "point": "tool.approval.pre",
        "session": session,
        "project": None,
        "decision": decision,
        "reason": reason,
        "duration": duration,
    }


def test_a_decide_that_waited_for_a_person_adds_the_wait_to_its_chain() -> None:
    waits = Waits()
    waits.see(internal("hookd.approval.offered", "s1", offer=7, point="tool.approval.pre", reason="rm needs a person"))
    waits.see(
        internal(
            "hookd.approval.answered", "s1", offer=7, decision="allow", reason="allowed by dana (x, pid 1)", approver="dana", waited=120.0
        )
    )
    event = decide("allow", "allowed by dana (x, pid 1)", 113.0)
    waits.see(event)
    assert event["waited"] == 120_113.0
    assert event["approval"] == {"offer": 7, "ms": 120_000.0, "expired": False, "by": "dana"}
    # A decide that asked nobody: what the agent waited is its chain.
    plain = decide("deny", "no sudo", 4.5)
    waits.see(plain)
    assert plain["waited"] == 4.5 and "approval" not in plain


def test_two_calls_waiting_at_once_each_get_their_own_approval() -> None:
    waits = Waits()
    for offer, session in ((1, "a"), (2, "b")):
        waits.see(internal("hookd.approval.offered", session, offer=offer, point="tool.approval.pre", reason="asks"))
    deadline = "approval deadline expired: no approver answered within 1 s; the default applies (deny)"
    waits.see(internal("hookd.approval.expired", "b", offer=2, decision="deny", reason=deadline, waited=1.0))
    waits.see(internal("hookd.approval.expired", "a", offer=1, decision="deny", reason=deadline, waited=1.5))
    first, second = decide("deny", deadline, 2.0, "a"), decide("deny", deadline, 3.0, "b")
    waits.see(first)
    waits.see(second)
    assert first["approval"]["offer"] == 1 and first["waited"] == 1502.0 and first["approval"]["expired"] is True
    assert second["approval"]["offer"] == 2 and second["waited"] == 1003.0
    again = decide("deny", deadline, 2.0, "a")  # each approval pairs with one decide only
    waits.see(again)
    assert "approval" not in again and again["waited"] == 2.0


def test_approvals_whose_decide_never_came_are_bounded() -> None:
    waits = Waits()
    for offer in range(1, 3 * KEPT):
        waits.see(internal("hookd.approval.offered", "s", offer=offer, point="p", reason="r"))
        waits.see(internal("hookd.approval.expired", "s", offer=offer, decision="deny", reason="r", waited=1.0))
    assert len(waits._closed) <= KEPT and len(waits._points) <= KEPT


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
events = st.fixed_dictionaries(
    {"kind": st.sampled_from(["internal", "decide", "emit"]) | values},
    optional={
        "point": st.sampled_from(["hookd.approval.offered", "hookd.approval.answered", "hookd.approval.expired", "tool.approval.pre"])
        | values,
        "payload": st.fixed_dictionaries(
            {}, optional={"offer": st.integers(-2, 3) | values, "waited": values, "point": values, "reason": values, "decision": values}
        )
        | values,
        "session": values,
        "decision": st.sampled_from(["allow", "deny"]) | values,
        "reason": values,
        "duration": values,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(events, max_size=30))
def test_whatever_the_events_hold_seeing_them_never_fails_and_waits_are_durations(seen: list[dict[str, Any]]) -> None:
    waits = Waits()
    for event in seen:
        waits.see(event)
        if "waited" in event and event.get("kind") == "decide":
            waited = event["waited"]
            assert isinstance(waited, float) and waited >= 0
