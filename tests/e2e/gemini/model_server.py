"""A scripted Gemini API server for driving Gemini CLI offline.

`POST /v1beta/models/MODEL:streamGenerateContent?alt=sse` is answered with server-sent `data:` lines: while the
conversation holds no `functionResponse`, one `functionCall` part for `run_shell_command` with COMMAND; after
that, text. Side queries (`:generateContent`, and any request without tools: routing, summaries, titles)
get a short JSON text answer. `:countTokens` gets a count. Every request is appended, one JSON line each, to
the log file, so the test reads what the agent told the model (the tool's output, or why it was blocked).

    python model_server.py PORT_FILE LOG_FILE COMMAND [READY_FILE]

With READY_FILE, the response carrying the `functionCall` waits (at most a minute) until that file exists: a
test uses it to let another program attach its session hooks before Gemini CLI runs the command.
"""

from __future__ import annotations

import json
import os
import sys

# The shared part of the scripted servers, next to this directory (run as a script, not imported).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scripted import ScriptedHandler, serve

USAGE = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}


def candidate(parts: list[dict[str, object]], finish: str | None = "STOP") -> dict[str, object]:
    body: dict[str, object] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        body["finishReason"] = finish
    return body


def answered(request: dict[str, object]) -> bool:
    for content in request.get("contents") or []:  # type: ignore[union-attr]
        for part in content.get("parts") or []:
            if "functionResponse" in part:
                return True
    return False


class Handler(ScriptedHandler):
    def send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        self.send(200, json.dumps({"models": []}).encode())

    def do_POST(self) -> None:
        request = self.read_logged()
        path = self.path.split("?", 1)[0]
        if path.endswith(":countTokens"):
            self.send(200, json.dumps({"totalTokens": 1}).encode())
            return
        has_tools = bool(request.get("tools"))
        if path.endswith(":generateContent") or not has_tools:
            # Side queries (the model router, next-speaker checks, summaries) ask for JSON or text.
            answer = {"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user"}
            text = json.dumps({**answer, "complexity_reasoning": "scripted", "complexity_score": 1})
            body = {"candidates": [candidate([{"text": text}])], "usageMetadata": USAGE}
            if path.endswith(":generateContent"):
                self.send(200, json.dumps(body).encode())
                return
            chunks = [body]
        elif answered(request):
            chunks = [{"candidates": [candidate([{"text": "The command has been handled."}])], "usageMetadata": USAGE}]
        else:
            self.wait_until_ready()
            call = {"functionCall": {"name": "run_shell_command", "args": {"command": self.command_to_run, "description": "run it"}}}
            chunks = [{"candidates": [candidate([call])], "usageMetadata": USAGE}]
        stream = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
        self.send(200, stream, "text/event-stream")


if __name__ == "__main__":
    serve(Handler)
