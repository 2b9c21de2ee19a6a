"""What `hookd dashboard` gives the page, against real daemons: the last events across a daemon
restart (read back from the journal, its rotated files included), what an agent waited for a
decide that waited for a person, and who answers from the page when USER is unset.
"""

from __future__ import annotations

import json
import os
import pwd
from typing import Any

import pytest

from hookd.events import journal_files

from .test_approvals import PAYLOAD, asking  # noqa: F401 - the fixture is used by name
from .test_dashboard import HANG_GUARD, Dashboard, PageStream
from .test_user_config import wait_until


def _state(dashboard: Dashboard) -> dict[str, Any]:
    status, _, body = dashboard.request("GET", "/api/state", headers={"Cookie": dashboard.cookie})
    assert status == 200
    return json.loads(body)  # type: ignore[no-any-return]


def _caught_up(dashboard: Dashboard, newest: int) -> dict[str, Any]:
    """The dashboard's state once it holds the event ``newest``."""

    def check() -> dict[str, Any] | None:
        state = _state(dashboard)
        return state if state["events"] and state["events"][-1]["seq"] >= newest else None

    return wait_until(check, timeout=HANG_GUARD)  # type: ignore[no-any-return]


def test_the_last_events_reach_back_across_a_daemon_restart(env, tmp_path, daemon_factory):  # type: ignore[no-untyped-def]
    # A journal of its own (the dashboard finds it in the daemon's status), small files: it rotates.
    journal = tmp_path / "journal" / "events.jsonl"
    flags = ("--journal", str(journal), "--journal-max-bytes", "2048", "--journal-keep", "100")
    first = daemon_factory(*flags)
    with first.client() as c:
        for i in range(40):
            c.emit("tool.execute.before", {"toolName": "execute_command", "args": {"command": f"echo {i}"}}, session="s-before")
    assert first.stop() == 0
    second = daemon_factory(*flags)
    with second.client() as c:
        for i in range(3):
            c.emit("tool.execute.before", {"toolName": "execute_command", "args": {"command": f"echo {i}"}}, session="s-after")
        newest = c.status().events
    assert len(journal_files.files(str(journal))) > 2

    for history in (500, 10):
        dashboard = Dashboard(env, "--name", "dana", "--history", str(history))
        try:
            state = _caught_up(dashboard, newest)
            seqs = [e["seq"] for e in state["events"]]
            last = seqs[-1]
            # The newest `history` events, each once, in order: the first daemon's from the journal.
            assert seqs == list(range(max(1, last - history + 1), last + 1)), (history, seqs)
            sessions = {e.get("session") for e in state["events"]}
            assert {"s-before", "s-after"} <= sessions
            if history == 500:
                assert seqs[0] == 1
                assert [e["seq"] for e in state["events"] if e["point"] == "hookd.daemon.started"][:1] == [1]
        finally:
            dashboard.stop()


@pytest.mark.usefixtures("asking")
def test_a_decide_decided_by_the_approval_deadline_shows_what_the_agent_waited(env, daemon_factory):  # type: ignore[no-untyped-def]
    daemon = daemon_factory("--approval-timeout", "1")
    dashboard = Dashboard(env, "--name", "dana")
    page = PageStream(dashboard)  # an open page: the dashboard is an approver, and nobody answers
    try:
        _, snapshot = page.next("snapshot")
        assert snapshot["approving"] is True
        with daemon.client(timeout=HANG_GUARD) as c:
            out = c.decide("tool.approval.pre", PAYLOAD, session="s-deadline")
        assert out.decision == "deny" and out.approval is not None and out.approval.expired
        while (event := page.next("event")[1])["kind"] != "decide":
            pass
        expired = next(e for e in _state(dashboard)["events"] if e["point"] == "hookd.approval.expired")
        assert event["approval"]["expired"] is True and event["approval"]["offer"] == expired["payload"]["offer"]
        assert event["waited"] == pytest.approx(event["duration"] + expired["payload"]["waited"] * 1000, abs=0.01)
        assert event["waited"] >= 1000  # it waited for the 1 s deadline, whatever its chain took
        assert event["duration"] < event["waited"]
    finally:
        page.close()
        dashboard.stop()


def test_without_USER_answers_from_the_page_carry_the_login_name(env, daemon):  # type: ignore[no-untyped-def]
    login = pwd.getpwuid(os.getuid()).pw_name
    for variable in ("USER", "LOGNAME"):
        env.env.pop(variable, None)
    dashboard = Dashboard(env)
    try:
        assert _state(dashboard)["approver"] == login
    finally:
        dashboard.stop()
