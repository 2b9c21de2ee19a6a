"""The HTTP endpoint's request parser (h11) and answer path load with its first connection: a daemon that no agent
calls over HTTP never pays for them, and the endpoint still answers once one does."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from hookd.config import endpoint_files as files
from hookd.edge.http import server

PARSER = ("h11", "hookd.edge.http.connection", "hookd.edge.http.answer")


def test_the_daemon_s_modules_load_no_request_parser() -> None:
    imports = "import json, sys, hookd.edge.service, hookd.cli.serve, hookd.daemon.daemon"
    code = f"{imports}\nprint(json.dumps([m for m in {PARSER!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_the_first_connection_loads_it_and_is_answered(tmp_path: Path) -> None:
    async def main() -> bytes:
        endpoint = await server.start(None, server.Options(port=0), str(tmp_path))  # type: ignore[arg-type]  # no call reaches the daemon
        try:
            reader, writer = await asyncio.open_connection(files.HOST, endpoint.port)
            writer.write(b"GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n")
            await writer.drain()
            head = await asyncio.wait_for(reader.readline(), 60)
            writer.close()
            return head
        finally:
            endpoint.close()

    head = asyncio.run(main())
    assert head.startswith(b"HTTP/1.1 4"), head  # refused, since it showed no secret: but answered
