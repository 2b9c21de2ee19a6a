"""Calls go on under one string object per recent session id (a bounded table the daemon
starts again when full): whatever the table holds, every event carries its own call's
session, and a session's hooks keep deciding its calls after the table has started again."""

from __future__ import annotations

from hookd_client import Client, Event

from hookd.daemon.handlers.calls import _SESSION_IDS

from ..conftest import write_script

HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite


def test_sessions_past_the_tables_bound_keep_their_ids_and_their_hooks(daemon, tmp_path) -> None:
    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        json.load(sys.stdin)
        print(json.dumps({"decision": "deny", "reason": "guarded"}))
        """,
    )
    sessions = [f"s{i}" for i in range(_SESSION_IDS + 300)] + ["s7", "s4100", "s7"]
    with Client(daemon.socket) as c:
        c.attach_session("guarded", [{"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": str(guard)}])
        assert c.decide("tool.approval.pre", {"toolName": "bash"}, session="guarded").decision == "deny"
        sub = Client(daemon.socket).subscribe(["custom.ids"], timeout=HANG_GUARD).open()
        for i, session in enumerate(sessions):
            c.emit("custom.ids", {"i": i}, session=session)
            if i % 1000 == 0:
                assert c.decide("tool.approval.pre", {"toolName": "bash"}, session=session).decision is None
        # The table has started again at least once: the guarded session is still itself.
        assert c.decide("tool.approval.pre", {"toolName": "bash"}, session="guarded").decision == "deny"
    got: list[Event] = []
    for item in sub:
        assert isinstance(item, Event), item  # no gap: the queue holds every event
        got.append(item)
        if item.payload["i"] == len(sessions) - 1:
            break
    sub.close()
    assert [(e.payload["i"], e.session) for e in got] == list(enumerate(sessions))
