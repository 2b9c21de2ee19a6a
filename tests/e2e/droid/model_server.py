"""A scripted OpenAI Chat Completions server for driving Factory Droid offline.

`POST /v1/chat/completions` with tools and no `tool` message yet: one `tool_calls` entry for Droid's shell
tool `Execute` (`{summary, command}`: the summary is required) with COMMAND; once the conversation holds the
tool's result, text. Requests without tools (side queries: titles, summaries) get short text. Streamed
(`stream: true`, server-sent `data:` chunks) or not, as asked. Every request is appended, one JSON line
each, to the log file.

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the response carrying the `tool_calls` entry waits (at most a minute) until that file exists:
a test uses it to let another program attach its session hooks before Droid runs the command.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# The shared part of the scripted servers, next to this directory (run as a script, not imported).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scripted import ScriptedHandler, serve

USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


class Handler(ScriptedHandler):
    def send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self.send(json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode(), "application/json")

    def do_POST(self) -> None:
        request = self.read_logged()
        messages = request.get("messages") or []
        message: dict[str, Any]
        if not request.get("tools"):
            message, finish = {"role": "assistant", "content": "Scripted title"}, "stop"
        elif any(m.get("role") == "tool" for m in messages):
            message, finish = {"role": "assistant", "content": "The command has been handled."}, "stop"
        else:
            self.wait_until_ready()
            arguments = json.dumps({"summary": "Run the requested command", "command": self.command_to_run})
            function = {"name": "Execute", "arguments": arguments}
            call = {"index": 0, "id": "call_scripted_1", "type": "function", "function": function}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        base = {"id": "chatcmpl-scripted", "created": 0, "model": request.get("model", "m")}
        if not request.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            body = {**base, "object": "chat.completion", "choices": [choice], "usage": USAGE}
            self.send(json.dumps(body).encode(), "application/json")
            return
        chunks = [
            {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
            {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "object": "chat.completion.chunk", "choices": [], "usage": USAGE},
        ]
        stream = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        self.send(stream, "text/event-stream")


if __name__ == "__main__":
    serve(Handler)
