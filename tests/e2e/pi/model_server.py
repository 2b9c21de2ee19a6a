"""A scripted Chat Completions server for driving pi offline (its `openai-completions` provider).

The first request of a conversation is answered with one streamed `tool_calls` chunk for pi's `bash` tool
(`{command, description}`); once the conversation holds the tool's result (a `tool` message), with text.
Every request body is appended, one JSON line each, to the log file, so the test reads what pi told the
model about its tool call (the command's output, or why it was blocked).

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the tool call waits (at most a minute) until that file exists: a test uses it to let another
program attach its session hooks before pi runs the command.
"""

from __future__ import annotations

import json
import os
import sys

# The shared part of the scripted servers, next to this directory (run as a script, not imported).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scripted import ScriptedHandler, serve


def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body).encode() + b"\n\n"


class Handler(ScriptedHandler):
    def do_POST(self) -> None:
        request = self.read_logged()
        messages = request.get("messages") or []
        if any(m.get("role") == "tool" for m in messages):
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


if __name__ == "__main__":
    serve(Handler)
