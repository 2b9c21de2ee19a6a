"""A scripted Chat Completions handler: one tool call, then text once the tool's result is back.

Shared by the Copilot and Cline servers (each names its own shell tool and its arguments in
``tool_call``). A request with tools and no `tool` message yet is answered with that call; one whose
conversation holds a `tool` message, or that offers no tools, with text. Streamed (`stream: true`,
server-sent `data:` chunks) or not, as asked.
"""

from __future__ import annotations

import json
from typing import Any

from scripted import ScriptedHandler

USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


class ChatHandler(ScriptedHandler):
    def tool_call(self) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

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
        if not request.get("tools") or any(isinstance(m, dict) and m.get("role") == "tool" for m in messages):
            message, finish = {"role": "assistant", "content": "The command has been handled."}, "stop"
        else:
            self.wait_until_ready()
            name, arguments = self.tool_call()
            function = {"name": name, "arguments": json.dumps(arguments)}
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
