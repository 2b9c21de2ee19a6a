"""Giving freed memory back (hookd/edge/heaptrim.py) starts no process: the daemon's modules load, and a trim runs,
without a library search (ctypes.util.find_library runs ldconfig, which every daemon start used to pay for)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CODE = """
import json, sys
started = []
sys.addaudithook(lambda event, args: started.append(event) if event in PROCESS_EVENTS else None)
import hookd.edge.service, hookd.cli.serve
from hookd.edge import heaptrim
block = bytearray(64 << 20)
del block
returned = heaptrim.trim()
print(json.dumps({"started": started, "returned": returned, "found": heaptrim._load() is not None}))
"""
PROCESS_EVENTS = ("subprocess.Popen", "os.posix_spawn", "os.fork", "os.forkpty", "os.exec", "os.system")


def _run() -> dict[str, object]:
    code = f"PROCESS_EVENTS = {PROCESS_EVENTS!r}\n{CODE}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_loading_the_daemon_and_trimming_start_no_process() -> None:
    got = _run()
    assert got["started"] == []
    assert isinstance(got["returned"], bool)


def test_glibc_s_malloc_trim_is_found_where_glibc_is_the_c_library() -> None:
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        glibc = None
    assert _run()["found"] is bool(glibc)
