"""The hooks both tiers' stats tests count (tests/daemon/test_stats.py, tests/integration/test_stats.py): a guard
that denies `rm` on Bash calls, and a decision hook that always fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .conftest import write_script

GUARD = """
import json, sys
payload = json.load(sys.stdin)
if "rm" in payload.get("args", {}).get("command", ""):
    print(json.dumps({"decision": "deny", "reason": "no rm"}))
"""
FAILS = "import sys\nsys.stderr.write('it broke\\n')\nsys.exit(1)\n"


def hooks_yaml(home: Path) -> str:
    guard = write_script(home / "guard.py", GUARD)
    fails = write_script(home / "fails.py", FAILS)
    return f"""
        hooks:
          - name: guard
            point: tool.approval.pre
            type: decision
            command: {guard}
            enabled: true
            priority: 10
            match: {{toolName: Bash}}
          - name: broken
            point: tool.approval.pre
            type: decision
            command: {fails}
            enabled: true
        """


def bash(command: str) -> dict[str, object]:
    return {"toolName": "Bash", "args": {"command": command}}


def by_name(stats: Any) -> dict[str, Any]:
    return {h.hook.name: h for h in stats.hooks}
