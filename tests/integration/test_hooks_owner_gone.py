"""`hookd hooks` shows a session hook whose owner has gone as such, with when its session ends: the
hook is still in force, but only for the rest of the grace period. Real daemon, real client, real CLI."""

from __future__ import annotations

import json
import re
import time

from hookd_client import Client

from ..conftest import Env

HANG_GUARD = 30.0
GRACE = 600  # seconds: far longer than the test, so the session is still there when it is listed


def test_hooks_marks_a_session_hook_whose_owner_is_gone(env: Env, daemon_factory) -> None:
    daemon = daemon_factory("--session-grace", str(GRACE))
    spec = {"name": "sg", "point": "tool.approval.pre", "type": "decision", "command": "/bin/true"}
    with Client(daemon.socket) as owner:
        owner.attach_session("s1", [spec])
        r = env.hookd("hooks")
        assert r.returncode == 0, r.stderr
        [row] = [line for line in r.stdout.splitlines() if line.startswith("session ")]
        assert row.rstrip().endswith(" s1") and "owner gone" not in row, row
    # The owner's connection closed; the daemon learns it from the socket: wait until it has.
    deadline = time.monotonic() + HANG_GUARD
    with Client(daemon.socket) as c:
        while not any(h.owner_gone for h in c.list_hooks(None).hooks) and time.monotonic() < deadline:
            time.sleep(0.01)
    listed = json.loads(env.hookd("hooks", "--json").stdout)["hooks"]
    [hook] = [h for h in listed if h["scope"] == "session"]
    assert hook["owner_gone"] is True and 0 < hook["expires_in"] <= GRACE, hook
    r = env.hookd("hooks")
    [row] = [line for line in r.stdout.splitlines() if line.startswith("session ")]
    found = re.search(r" s1  \(owner gone; the session ends in (\d+) s unless attached again\)$", row)
    assert found is not None and 0 < int(found.group(1)) <= GRACE, row
