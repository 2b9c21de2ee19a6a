"""What every scripted model server of the end-to-end suites shares: a request handler that
logs each request's JSON body, holds its tool call until a ready file exists (at most a minute,
for a test that must attach something first), and a main that serves on 127.0.0.1 and writes
the port it got. Each agent's model_server.py speaks that agent's API on top of it.

    python tests/e2e/AGENT/model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

READY_WAIT = 60.0  # seconds a tool call waits for the ready file


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    command_to_run = "true"  # the shell command the scripted model asks the agent to run
    log_file = ""  # one JSON line per request: {"path", "body"}
    ready_file = ""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_WAIT
        while self.ready_file and not os.path.exists(self.ready_file) and time.monotonic() < deadline:
            time.sleep(0.05)

    def read_logged(self) -> Any:
        """The request's JSON body, appended to the log first."""
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            request = {"unparsed": raw.decode("utf-8", "replace")}
        with open(self.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps({"path": self.path, "body": request}) + "\n")
        return request


def serve(handler: type[ScriptedHandler]) -> None:
    """Serve ``handler`` as the command line says; the port file appears once the port is bound."""
    port_file, log_file, command = sys.argv[1:4]
    handler.command_to_run = command
    handler.log_file = log_file
    handler.ready_file = sys.argv[4] if len(sys.argv) > 4 else ""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()
