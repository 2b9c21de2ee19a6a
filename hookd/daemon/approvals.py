"""Approvals over the bus: a decide whose chain ends in ``ask`` waits for a person.

When at least one approver is connected, the call is offered to every approver and waits,
up to the approval deadline (its own setting, not the hook timeout), for the first answer:
``allow`` or ``deny``, with a reason and who answered. When the deadline passes the
configured default applies (deny unless set otherwise) and the outcome says so. With no
approver connected nothing changes: ``ask`` goes back to the agent.

An offer belongs to the call, not to an approver: an approver that goes away leaves it open
for the others (and for any approver that connects while it waits), and the deadline
decides it if nobody does. Every offer, answer and expiry is an internal event on the bus
(hookd.approval.offered / answered / expired), and so in the journal.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog
from hookd_client import messages as m

from hookd.core import intake
from hookd.core.refusal import Refusal

if TYPE_CHECKING:
    from hookd.core.chain import ChainState
    from hookd.core.registry import CallContext
    from hookd.core.settings import Settings

log = structlog.get_logger("hookd.approvals")

# Offers decided lately, kept to tell a late answer who decided first.
_RECENT = 256


class ApprovalRefused(Refusal):
    """An answer that cannot be taken; ``code`` is the protocol's error code."""


@dataclass(slots=True)
class _Open:
    offer: m.ApprovalOffer
    started: float  # monotonic
    decided: asyncio.Future[m.Approval] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class Approvals:
    def __init__(self, settings: Settings, publish: Any) -> None:
        self.settings = settings
        self._publish = publish  # bus.internal(point, payload, session, project)
        self.approvers: dict[Any, m.Approver] = {}
        self.open: dict[int, _Open] = {}
        self.recent: OrderedDict[int, m.Approval] = OrderedDict()
        self._ids = itertools.count(1)
        self.closing = False

    # ------------------------------------------------------------ approvers

    def join(self, conn: Any, name: str) -> m.Approving:
        """Make ``conn`` an approver and offer it every call already waiting."""
        who = m.Approver(name or getattr(conn, "client", "") or "approver", getattr(conn, "client", ""), getattr(conn, "peer", 0))
        self.approvers[conn] = who
        log.info("approver joined", approver=who.name, client=who.client, pid=who.pid)
        reply = m.Approving(0, len(self.open), self.settings.approval_timeout, self.settings.approval_default)
        return reply

    def offer_waiting(self, conn: Any) -> None:
        """After the ``approving`` reply: the offers already open, oldest first."""
        for waiting in list(self.open.values()):
            self._send(conn, waiting.offer)

    def leave(self, conn: Any) -> None:
        """An approver went away: its offers stay open for the others and the deadline."""
        who = self.approvers.pop(conn, None)
        if who is not None:
            log.info("approver left", approver=who.name, pid=who.pid, open=len(self.open))

    # ---------------------------------------------------------------- calls

    def wanted(self, state: ChainState) -> bool:
        return state.decision == "ask" and bool(self.approvers) and not self.closing

    async def settle(self, state: ChainState, ctx: CallContext) -> m.Approval:
        """Offer the call, wait for the first answer or the deadline, and fold the result into ``state``.

        The offer shows the payload as the chain left it (``state.payload``: with any rewrite of its
        arguments an earlier hook made), which is what the agent would run if the call is allowed."""
        timeout = self.settings.approval_timeout
        if ctx.deadline is not None:
            # A person's answer after the agent has stopped waiting would be read by no one.
            timeout = max(0.0, min(timeout, ctx.deadline - time.monotonic()))
        now = time.time()
        asked_by = state.decided_by
        offer = m.ApprovalOffer(
            next(self._ids), ctx.point, ctx.session, ctx.project, state.payload, state.reason, asked_by, now, now + timeout, timeout
        )
        waiting = _Open(offer, time.monotonic())
        self.open[offer.offer] = waiting
        event: dict[str, Any] = {"offer": offer.offer, "point": ctx.point, "reason": state.reason, "approvers": len(self.approvers)}
        if asked_by is not None:
            event.update(hook=asked_by.name, scope=asked_by.scope, source=asked_by.source)
        event["timeout"] = timeout
        self._publish("hookd.approval.offered", event, ctx.session, ctx.project)
        for conn in list(self.approvers):
            self._send(conn, offer)
        try:
            async with asyncio.timeout(timeout):
                approval = await asyncio.shield(waiting.decided)
        except TimeoutError:
            approval = self._expire(waiting, f"no approver answered within {timeout:g} s")
        except asyncio.CancelledError:
            # The call itself is being given up (the daemon stops): close the offer for the approvers.
            self._expire(waiting, "the call was cancelled")
            raise
        state.decision = approval.decision
        state.reason = approval.reason
        if state.agent_output and "defer" in state.agent_output:  # a person decided: nothing is deferred now
            state.agent_output = {k: v for k, v in state.agent_output.items() if k != "defer"} or None
        return approval

    def answer(self, conn: Any, req: m.ApprovalAnswer) -> m.ApprovalAnswered:
        who = self.approvers.get(conn)
        if who is None:
            raise ApprovalRefused(m.ErrorCode.BAD_REQUEST, "this connection is not an approver: send `approvals` first")
        waiting = self.open.get(req.offer)
        if waiting is None or waiting.decided.done():
            done = self.recent.get(req.offer)
            if done is None:
                raise ApprovalRefused(m.ErrorCode.NOT_FOUND, f"approval {req.offer} is not open (never offered, or long decided)")
            by = f"by {done.by.name}" if done.by is not None else "by its deadline"
            raise ApprovalRefused(m.ErrorCode.CONFLICT, f"approval {req.offer} was already decided ({done.decision}, {by})")
        text = intake.safe_text(req.reason.strip()) if req.reason and req.reason.strip() else ""
        verb = "allowed" if req.decision == "allow" else "denied"
        reason = f"{verb} by {who.name} ({who.client or 'client'}, pid {who.pid})" + (f": {text}" if text else "")
        approval = m.Approval(req.offer, req.decision, reason, who, False, self._waited(waiting))
        self._close(waiting, approval)
        event: dict[str, Any] = {"offer": req.offer, "decision": req.decision, "reason": reason, "approver": who.name, "client": who.client}
        event.update(pid=who.pid, waited=approval.waited)
        self._publish("hookd.approval.answered", event, waiting.offer.session, waiting.offer.project)
        return m.ApprovalAnswered(req.id, req.offer, req.decision)

    def stop(self) -> None:
        """The daemon stops: open offers are decided now by the default, not left to the drain's end."""
        self.closing = True
        for waiting in list(self.open.values()):
            self._expire(waiting, "the daemon is stopping")

    # -------------------------------------------------------------- helpers

    def _expire(self, waiting: _Open, why: str) -> m.Approval:
        default = self.settings.approval_default
        reason = f"approval deadline expired: {why}; the default applies ({default})"
        approval = m.Approval(waiting.offer.offer, default, reason, None, True, self._waited(waiting))
        if self._close(waiting, approval):
            event = {"offer": waiting.offer.offer, "decision": default, "reason": reason, "waited": approval.waited}
            self._publish("hookd.approval.expired", event, waiting.offer.session, waiting.offer.project)
            return approval
        return waiting.decided.result()

    def _close(self, waiting: _Open, approval: m.Approval) -> bool:
        """Decide the offer once; tell every approver. False when it was already decided."""
        if waiting.decided.done():
            return False
        waiting.decided.set_result(approval)
        self.open.pop(approval.offer, None)
        self.recent[approval.offer] = approval
        while len(self.recent) > _RECENT:
            self.recent.popitem(last=False)
        closed = m.ApprovalClosed(approval)
        for conn in list(self.approvers):
            self._send(conn, closed)
        return True

    def _send(self, conn: Any, frame: m.Reply) -> None:
        try:
            conn.send(frame)
        except Exception as exc:  # one approver's broken connection must not affect the call or the others
            log.warning("could not send to an approver", error=f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _waited(waiting: _Open) -> float:
        return round(time.monotonic() - waiting.started, 3)
