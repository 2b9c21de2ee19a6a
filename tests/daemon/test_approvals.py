"""Approvals in process: with no approver connected, a decide whose chain ends in ask goes back to the
agent as the hook's ask. Offers, answers, deadlines and approvers on their own connections:
tests/integration/test_approvals.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..conftest import write_script
from .conftest import InProcess

PAYLOAD = {"toolName": "execute_command", "args": {"command": "rm -rf build"}}
ASK = """
import json, sys
call = json.load(sys.stdin)
command = call.get("payload", call).get("args", {}).get("command", "")
if command.startswith("rm "):
    print(json.dumps({"decision": "ask", "reason": "rm needs a person"}))
elif command.startswith("sudo "):
    print(json.dumps({"decision": "deny", "reason": "no sudo"}))
"""


def test_no_approver_connected_ask_goes_back_to_the_agent(in_process: Any, home: Path) -> None:
    script = write_script(home / "ask.py", ASK)

    async def scenario(d: InProcess) -> Any:
        d.global_hooks(f"hooks:\n  - {{name: rm-asks, point: tool.approval.pre, type: decision, command: {script}, enabled: true}}\n")
        return await d.client().decide("tool.approval.pre", PAYLOAD, session="s1")

    out = in_process(scenario)
    assert out.decision == "ask" and out.reason == "rm needs a person"
    assert out.approval is None and out.decided_by.name == "rm-asks"
