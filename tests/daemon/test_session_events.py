"""Sessions as the event stream tells them, in process: an attach is published with the number of
hooks it brought, client handlers included. A session's owner going away, caps and memory:
tests/integration/test_session_lifecycle.py."""

from __future__ import annotations

from typing import Any

from .conftest import InProcess

POINT = "tool.approval.pre"


def test_sessions_attached_with_handlers_are_published(in_process: Any) -> None:
    async def scenario(d: InProcess) -> list[Any]:
        c = d.client()  # its handler is never called here: registering it is what is published
        await c.register_decision(POINT, lambda p: None, session="with-handler")
        await c.attach_session("plain")
        return await c.events(["hookd.session.attached"])

    events = in_process(scenario)
    assert [(e.session, e.payload["hooks"]) for e in events] == [("with-handler", 1), ("plain", 0)]
