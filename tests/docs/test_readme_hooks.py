"""The README's main hook file does what its text says once copied as it is.

It is the global hooks.yaml of every docs world (tests/docs/test_samples.py); here it
runs against real calls: it denies the blocked commands, lets others through, never
sees calls its `match` leaves out, and its observer logs LLM requests.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import DaemonProcess
from .test_samples import make_world

POINT = "tool.approval.pre"


def test_the_readme_guard_denies_only_what_it_blocks(tmp_path: Path) -> None:
    world = make_world(tmp_path / "world")
    daemon = DaemonProcess(world).start()
    socket = str(tmp_path / "world" / "run" / "hookd" / "hookd.sock")
    try:
        from hookd_client import Client

        with Client(socket, timeout=60) as c:
            denied = c.decide(POINT, {"toolName": "execute_command", "args": {"command": "rm -rf /"}})
            assert denied.decision == "deny"
            assert denied.reason == "'rm -rf' is blocked"
            assert denied.decided_by.name == "block-dangerous-commands"
            mkfs = c.decide(POINT, {"toolName": "execute_command", "args": {"command": "sudo mkfs.ext4 /dev/sda1"}})
            assert mkfs.decision == "deny"
            harmless = c.decide(POINT, {"toolName": "execute_command", "args": {"command": "ls -la"}})
            assert harmless.decision is None and harmless.errors == [] and harmless.not_run == []
            # Another tool never reaches the guard, so even a broken guard could not deny it.
            read = c.decide(POINT, {"toolName": "read", "args": {"path": "README.md"}})
            assert read.decision is None and read.errors == []
            assert [h.name for h in c.explain(POINT).decision_hooks] == ["block-dangerous-commands"]
            c.emit("llm.request.before", {"model": "m1", "messages": 3})
        log = Path(world.env["HOME"]) / "llm-requests.jsonl"
        from ..integration.test_user_config import wait_until

        lines = wait_until(lambda: log.exists() and log.read_text().splitlines())
        assert json.loads(lines[0]) == {"model": "m1", "messages": 3}
    finally:
        daemon.stop()
