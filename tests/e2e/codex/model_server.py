"""A scripted OpenAI Responses API server for driving the Codex CLI offline.

A request whose input holds no `function_call_output` yet is answered with one streamed `function_call` item
for Codex's shell tool (`exec_command`, `{"cmd": COMMAND}`); once the tool's output is in the conversation,
with a text message. Every request body is appended, one JSON line each, to the log file so the test can read
what Codex sent back to the model (the command's output, or why a hook blocked it).

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the response carrying the tool call waits (at most a minute) until that file exists: a test
uses it to let another program attach its session hooks before Codex runs the command.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

# The shared part of the scripted servers, next to this directory (run as a script, not imported).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scripted import ScriptedHandler, serve

USAGE = {
    "input_tokens": 1,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 1,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 2,
}


def event(kind: str, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


def response(n: int, item: dict[str, Any]) -> bytes:
    """The server-sent events of one response holding one output item."""
    rid = f"resp_{n:04d}"
    head = {"id": rid, "object": "response", "status": "in_progress", "output": []}
    done = {"id": rid, "object": "response", "status": "completed", "output": [item], "usage": USAGE}
    return b"".join(
        (
            event("response.created", response=head),
            event("response.output_item.added", output_index=0, item={**item, "status": "in_progress"}),
            event("response.output_item.done", output_index=0, item=item),
            event("response.completed", response=done),
        )
    )


class Handler(ScriptedHandler):
    served = 0

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [], "models": []}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = self.read_logged()
        Handler.served += 1
        n = Handler.served
        items = request.get("input") or []
        answered = any(isinstance(i, dict) and i.get("type") == "function_call_output" for i in items)
        if answered or not request.get("tools"):
            text = {"type": "output_text", "text": "The command has been handled.", "annotations": []}
            item = {"type": "message", "id": f"msg_{n:04d}", "role": "assistant", "status": "completed", "content": [text]}
        else:
            self.wait_until_ready()
            arguments = json.dumps({"cmd": self.command_to_run})
            item = {"type": "function_call", "id": f"fc_{n:04d}", "call_id": f"call_{n:04d}", "name": "exec_command"}
            item.update(arguments=arguments, status="completed")
        body = response(n, item)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()


if __name__ == "__main__":
    serve(Handler)
