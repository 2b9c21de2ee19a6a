"""Callback hooks and session ownership.

A client may serve hooks itself: it attaches them with ``attach_hooks`` and
the daemon then sends it ``invoke`` frames (daemon -> client, decoded by the
client with the replies) which it answers with ``invoke_result`` (client ->
daemon, no reply). Invoke ids (``call``) are chosen by the daemon and are
unrelated to request ids; an Invoke's ``id`` is always 0 so a client that
routes frames by ``id`` never mistakes one for a reply."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from .base import Decision, HookSpec, HookType, NonEmpty, OnError, Reply, Request, RequestId, Timeout


class CallbackSpec(msgspec.Struct, omit_defaults=True, forbid_unknown_fields=True):
    """A hook served by the attaching connection. ``cb`` is the client's own handler number."""

    cb: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
    name: NonEmpty
    point: NonEmpty
    type: HookType
    priority: int = 0
    timeout: Timeout | None = None
    on_error: OnError = "continue"


class CommandEntry(msgspec.Struct, tag_field="kind", tag="command", omit_defaults=True):
    spec: HookSpec


class CallbackEntry(msgspec.Struct, tag_field="kind", tag="callback", omit_defaults=True):
    spec: CallbackSpec


SessionEntry = CommandEntry | CallbackEntry


class AttachHooks(Request, tag="attach_hooks"):
    """Attach a session (claiming it for this connection) and add ``hooks`` in order, all or none.

    With ``fresh`` the session's hooks are replaced by ``hooks`` (what a client
    sends to restore its sessions after a reconnect); otherwise they are added.
    """

    id: RequestId
    session: NonEmpty
    project: str | None = None
    hooks: list[SessionEntry] = []
    fresh: bool = False


class InvokeResult(Request, tag="invoke_result"):
    """A client's answer to an Invoke: the handler's Decision (or null), or its error."""

    call: int
    decision: Decision | None = None
    error: str | None = None


class Invoke(Reply, tag="invoke"):
    """Daemon -> client: run handler ``cb`` on ``payload`` and answer with an InvokeResult."""

    call: int
    cb: int
    point: str
    hook: str
    kind: HookType
    payload: dict[str, Any] = {}
    session: str | None = None
    project: str | None = None
    id: int = 0
    replay: bool = False  # a journaled call run again (`hookd replay`): avoid side effects
