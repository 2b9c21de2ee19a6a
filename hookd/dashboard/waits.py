"""What the agent waited for a decide: its chain's time, plus a person's answer when it asked one.

A decide's event carries its chain's time (``duration``, in milliseconds). A chain that ends in
``ask`` while an approver is connected then waits for a person, up to the approval deadline
(hookd/daemon/approvals.py), and the agent waits with it: 120 s for an approver can follow a
113 ms chain. That wait is told by the approval's own events, published before the call's
decide: ``hookd.approval.offered`` (the offer, the call's point, session and project), then
``hookd.approval.answered`` or ``hookd.approval.expired`` (``waited``, in seconds). The decide
that follows carries the approval's decision and reason. So the dashboard pairs each decide with
the approval closed for the same call (point, session, project, decision and reason; the first
such one still unpaired) and adds the two waits: ``waited`` on the decide (milliseconds, what the
agent waited) and ``approval`` (the offer, who answered, how long the person took).

Events are dicts as the page gets them; any field may be missing or of another type (an event
of an older daemon, a client's payload), and is then left alone.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any

KEPT = 1_024  # approvals remembered while their decide has not come (bounded: a decide may never come)
_CLOSED = ("hookd.approval.answered", "hookd.approval.expired")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value < 0:
        return None  # NaN and negatives are no duration
    return float(value)


class Waits:
    """Pairs decides with the approvals they waited for, as events pass (oldest first)."""

    def __init__(self) -> None:
        self._points: OrderedDict[int, str] = OrderedDict()  # open offer -> the call's point
        self._closed: deque[dict[str, Any]] = deque(maxlen=KEPT)

    def see(self, event: dict[str, Any]) -> None:
        """Note an approval's event, or add to a decide's event what its agent waited."""
        kind = event.get("kind")
        if kind == "internal":
            self._internal(event)
        elif kind == "decide":
            self._decide(event)

    def _internal(self, event: dict[str, Any]) -> None:
        point = event.get("point")
        payload = event.get("payload")
        if not isinstance(payload, dict):
            return
        offer = payload.get("offer")
        if not isinstance(offer, int) or isinstance(offer, bool):
            return
        if point == "hookd.approval.offered":
            called = payload.get("point")
            if isinstance(called, str):
                self._points[offer] = called
                while len(self._points) > KEPT:
                    self._points.popitem(last=False)
        elif point in _CLOSED:
            waited = _number(payload.get("waited"))
            if waited is None:
                return
            approval: dict[str, Any] = {"offer": offer, "ms": round(waited * 1000, 3), "expired": point == _CLOSED[1]}
            if isinstance(payload.get("approver"), str):
                approval["by"] = payload["approver"]
            self._closed.append(
                {
                    "approval": approval,
                    "point": self._points.pop(offer, None),  # None: offered before the events seen
                    "session": event.get("session"),
                    "project": event.get("project"),
                    "decision": payload.get("decision"),
                    "reason": payload.get("reason"),
                }
            )

    def _decide(self, event: dict[str, Any]) -> None:
        chain = _number(event.get("duration"))
        approval = self._take(event) if event.get("decision") in ("allow", "deny") else None
        if approval is not None:
            event["approval"] = approval
            event["waited"] = round((chain or 0.0) + approval["ms"], 3)
        elif chain is not None:
            event["waited"] = chain

    def _take(self, event: dict[str, Any]) -> dict[str, Any] | None:
        for i, closed in enumerate(self._closed):
            if (
                closed["decision"] == event.get("decision")
                and closed["reason"] == event.get("reason")
                and closed["session"] == event.get("session")
                and closed["project"] == event.get("project")
                and closed["point"] in (None, event.get("point"))
            ):
                del self._closed[i]
                approval: dict[str, Any] = closed["approval"]
                return approval
        return None
