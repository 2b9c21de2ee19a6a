"""Process checks for tests that must prove a process is gone."""

from __future__ import annotations

import time


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return False


def gone_soon(pid: int, within: float = 5) -> bool:
    """Whether ``pid`` is gone within ``within`` seconds (a hang guard, not a speed check)."""
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)
