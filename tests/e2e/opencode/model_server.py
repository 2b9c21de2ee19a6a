"""A scripted Chat Completions server for driving opencode offline.

The first turn of a session answers with one streamed `tool_calls` chunk for opencode's `bash` tool; once
the conversation holds the tool's result, it answers with text. Requests without tools (opencode's title
generation) get a short title. Every request body is appended, one JSON line each, to the log file so the
test can read what the agent sent back to the model (the tool's output, or why it was blocked).

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the tool call waits (at most a minute) until that file exists: a test uses it to let another
program attach its session hooks before the agent runs the command.
"""

from __future__ import annotations

import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    command_to_run = "true"
    log_file = ""
    ready_file = ""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + 60
        while self.ready_file and not os.path.exists(self.ready_file) and time.monotonic() < deadline:
            time.sleep(0.05)

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = json.loads(raw or b"{}")
        with open(self.log_file, "a", encoding="utf-8") as log:
            log.write(json.dumps({"path": self.path, "body": request}) + "\n")
        messages = request.get("messages") or []
        answered = any(m.get("role") == "tool" for m in messages)
        if not request.get("tools"):
            frames = [chunk({"role": "assistant", "content": "scripted title"}), chunk({}, "stop")]
        elif answered:
            frames = [chunk({"role": "assistant", "content": "The command has been handled."}), chunk({}, "stop")]
        else:
            self.wait_until_ready()
            call = {
                "index": 0,
                "id": "call_scripted_1",
                "type": "function",
                "function": {"name": "bash", "arguments": json.dumps({"command": self.command_to_run, "description": "run it"})},
            }
            frames = [chunk({"role": "assistant", "tool_calls": [call]}), chunk({}, "tool_calls")]
        usage = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "m",
            "choices": [],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        frames.append(b"data: " + json.dumps(usage).encode() + b"\n\n")
        frames.append(b"data: [DONE]\n\n")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for frame in frames:
            self.wfile.write(frame)
        self.wfile.flush()
        self.close_connection = True


def main() -> None:
    port_file, log_file, command = sys.argv[1:4]
    Handler.command_to_run = command
    Handler.log_file = log_file
    Handler.ready_file = sys.argv[4] if len(sys.argv) > 4 else ""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
