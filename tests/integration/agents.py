"""A real agent process for the lifecycle tests: attaches a session that mixes a handler and a command hook.

    python agents.py SOCKET MODE [COMMAND_HOOK]

MODE ``deny``: the handler denies. MODE ``hang``: the handler prints ``invoked``
and never answers. The agent prints ``ready`` once attached and exits on EOF
of stdin (or when killed).
"""

from __future__ import annotations

import sys
import time

from hookd_client import Client, callback


def main() -> None:
    path, mode = sys.argv[1], sys.argv[2]

    def handler(payload: dict) -> dict | None:
        if mode == "hang":
            print("invoked", flush=True)
            time.sleep(3600)
        return {"decision": "deny", "reason": f"agent handler ({mode})"}

    hooks: list = [callback("tool.approval.pre", handler, priority=10, name="agent-handler")]
    if len(sys.argv) > 3:
        hooks.append({"name": "agent-command", "point": "tool.approval.pre", "type": "decision", "command": sys.argv[3], "enabled": True})
    client = Client(path)
    client.attach_session("s1", hooks)
    print("ready", flush=True)
    sys.stdin.readline()
    client.close()


if __name__ == "__main__":
    main()
