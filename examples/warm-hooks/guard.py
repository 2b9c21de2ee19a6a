#!/usr/bin/env python3
"""A persistent decision hook in Python with hookd_client.worker (mode: persistent)."""

from hookd_client.worker import serve


def check(event: dict) -> dict | None:
    command = event["payload"].get("args", {}).get("command", "")
    if "rm -rf" in command:
        return {"decision": "deny", "reason": "no recursive force delete"}
    return None


serve(check)
