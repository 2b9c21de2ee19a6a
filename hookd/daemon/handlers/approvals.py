"""Approvals: a connection becomes an approver, and answers the calls offered to it (hookd/daemon/approvals.py)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from hookd_client import messages as m

from hookd.daemon.approvals import ApprovalRefused
from hookd.daemon.handlers.common import Handler, Peer, RequestError, Result

if TYPE_CHECKING:
    from hookd.daemon.approvals import Approvals


class ApprovalsParts(Protocol):
    """What answering approvals uses: the calls waiting for a person."""

    approvals: Approvals


class ApprovalsFeature:
    def __init__(self, daemon: ApprovalsParts) -> None:
        self.d = daemon

    def handlers(self) -> dict[type[m.Request], Handler]:
        return {m.Approvals: self.approvals, m.ApprovalAnswer: self.answer}

    def approvals(self, conn: Peer, req: m.Approvals) -> Result:
        approvals = self.d.approvals
        if conn in approvals.approvers:
            raise RequestError(m.ErrorCode.CONFLICT, "this connection is already an approver")
        reply = approvals.join(conn, req.name)
        reply.id = req.id
        conn.holds = True  # an approver waits silently for offers: never closed as idle
        # The offers already open follow the reply, which the connection writes when this returns.
        asyncio.get_running_loop().call_soon(approvals.offer_waiting, conn)
        return reply

    def answer(self, conn: Peer, req: m.ApprovalAnswer) -> Result:
        try:
            return self.d.approvals.answer(conn, req)
        except ApprovalRefused as exc:
            raise RequestError(exc.code, exc.message) from None
