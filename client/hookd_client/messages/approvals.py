"""Approvals over the bus: a connection becomes an approver; a decide whose chain ends in ``ask``
is offered to the approvers, and the first answer decides it (docs/protocol.md, "Approvals").

Flow: ``approvals`` makes the connection an approver (reply ``approving``); the daemon then sends an
``approval_offer`` frame for every call waiting for a person (those already waiting first), and an
``approval_closed`` frame when one is decided (by any approver, or by its deadline). An approver
answers with ``approval_answer`` (reply ``approval_answered``, or an error when the offer is no
longer open). Offer and closed frames carry no request id (``id`` 0), like event frames.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .base import HookRef, Reply, Request, RequestId

ApprovalDecision = Literal["allow", "deny"]
ApproverName = Annotated[str, msgspec.Meta(max_length=200)]
AnswerReason = Annotated[str, msgspec.Meta(max_length=4000)]


class Approver(msgspec.Struct, omit_defaults=True):
    """Who answered: the name the approver gave, its client name (from its hello) and its pid
    (from the socket's peer credentials, not from the client's word)."""

    name: str
    client: str = ""
    pid: int = 0


class Approval(msgspec.Struct, omit_defaults=True):
    """How a call offered to approvers was decided: by an approver (``by``) or by its deadline
    (``expired``, then ``decision`` is the daemon's configured default)."""

    offer: int
    decision: ApprovalDecision
    reason: str
    by: Approver | None = None
    expired: bool = False
    waited: float = 0.0  # seconds between the offer and its decision


class Approvals(Request, tag="approvals"):
    """Make this connection an approver. ``name`` is shown as who answered (default: the client name)."""

    id: RequestId
    name: ApproverName = ""


class Approving(Reply, tag="approving"):
    """Answer to ``approvals``: ``pending`` offers follow at once; ``timeout`` is the daemon's
    approval deadline in seconds and ``default`` what applies when it passes."""

    id: int
    pending: int
    timeout: float
    default: ApprovalDecision


class ApprovalOffer(Reply, tag="approval_offer"):
    """A decide waiting for a person. ``reason`` and ``asked_by`` are the hook that asked and its
    reason; ``expires`` is the Unix time the deadline passes (``timeout`` seconds after ``offered``)."""

    offer: int
    point: str
    session: str | None = None
    project: str | None = None
    payload: dict[str, Any] = {}
    reason: str | None = None
    asked_by: HookRef | None = None
    offered: float = 0.0
    expires: float = 0.0
    timeout: float = 0.0
    id: int = 0


class ApprovalAnswer(Request, tag="approval_answer"):
    """An approver's answer to ``offer``: the first answer decides the call."""

    id: RequestId
    offer: Annotated[int, msgspec.Meta(ge=1)]
    decision: ApprovalDecision
    reason: AnswerReason | None = None


class ApprovalAnswered(Reply, tag="approval_answered"):
    """Answer to ``approval_answer``: this answer decided the offer."""

    id: int
    offer: int
    decision: ApprovalDecision


class ApprovalClosed(Reply, tag="approval_closed"):
    """Sent to every approver when an offer is decided, whoever decided it."""

    approval: Approval
    id: int = 0
