"""The connection handshake and the two calls: ``emit`` (observers) and ``decide`` (the chain)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from .approvals import Approval
from .base import DecisionKind, HookError, HookRef, NotRun, Reply, Request, RequestId
from .observe import TraceEntry


class Hello(Request, tag="hello"):
    id: RequestId
    protocol: int
    client: str = ""
    pid: int = 0


class PointCall(Request):
    # What an emit and a decide both are: a call on ``point`` with its payload, in a session's or a
    # project's scope. Not on the wire by itself; its fields come first in both, in this order.
    id: RequestId
    point: str
    payload: dict[str, Any] = {}
    session: str | None = None
    project: str | None = None


class Emit(PointCall, tag="emit"):
    wait: bool = False


class Decide(PointCall, tag="decide"):
    trace: bool = False  # the outcome carries a trace: what each hook saw, answered and wrote (docs/observe.md)
    # Seconds the caller waits for the outcome (an agent's hook timeout, less its bridge's margin):
    # every wait of the call (hook timeouts, an approval) ends before, so a guard's on_error answers
    # in time. None: the hooks' own timeouts alone.
    timeout: Annotated[float, msgspec.Meta(gt=0)] | None = None


class Limits(msgspec.Struct, omit_defaults=True):
    max_frame: int
    hook_timeout: float
    max_inflight: int


class Welcome(Reply, tag="welcome"):
    id: int
    protocol: int
    server: str
    version: str
    pid: int
    limits: Limits


class Accepted(Reply, tag="accepted"):
    """Answer to ``emit``: the event was accepted; with ``wait`` observers have finished."""

    id: int
    observers: int = 0
    errors: list[HookError] = []


class Outcome(Reply, tag="outcome"):
    """Answer to ``decide``: the chain's result."""

    id: int
    decision: DecisionKind | None = None
    reason: str | None = None
    injection: str | None = None
    modified_input: dict[str, Any] | None = msgspec.field(default=None, name="modifiedInput")
    modified_output: Any = msgspec.field(default=None, name="modifiedOutput")
    decided_by: HookRef | None = None
    errors: list[HookError] = []
    not_run: list[NotRun] = []
    agent_output: dict[str, Any] | None = msgspec.field(default=None, name="agentOutput")
    trace: list[TraceEntry] | None = None  # with ``trace`` on the decide: every hook of the call, in order
    approval: Approval | None = None  # set when approvers decided the call (docs/approvals.md)
