"""The scripted model every agent's end-to-end suite talks to: one HTTP server on 127.0.0.1, in the test's own
process, answering from one script of turns in the wire format its agent speaks.

A script is a list of steps, each what the assistant says next: ``tool(name, input)`` or ``text(value)``. Which
step answers a request is the number of assistant turns already in its conversation, so a retried request gets
the same answer; past the end of the script the model says ``final``. A request that offers no tools (titles,
summaries, routing) is a side query and gets the wire's side answer. With ``ready_file``, an answer carrying a
tool call waits (at most a minute) until that file exists: a test uses it to let another program attach its
session hooks before the agent runs the tool.

Every request body is kept in ``model.requests``; ``model.tool_results()`` is what the agent told the model
about its tool calls (a command's output, or why a hook blocked it), in order, once each.

The wire formats: ``CHAT`` (OpenAI Chat Completions, streamed or not as asked), ``RESPONSES`` (OpenAI Responses,
streamed), ``GEMINI`` (the Gemini API's generateContent, streamed as server-sent events) and ``MESSAGES``
(Anthropic's Messages API, streamed or not as asked). Each agent's folder names its own shell tool call and the
quirks of its wire (its model_server.py, or harness.py for Claude Code).

    with Model(CHAT, [tool("bash", {"command": "ls"}), text("done")]) as model:
        ...  # point the agent at model.url
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

READY_WAIT = 60.0  # seconds a tool call waits for the ready file
HANDLED = "The command has been handled."


@dataclass(frozen=True)
class Step:
    kind: str  # "tool" or "text"
    text: str = ""
    name: str = ""
    input: Mapping[str, Any] = field(default_factory=dict)


def tool(name: str, input: Mapping[str, Any]) -> Step:
    return Step("tool", name=name, input=input)


def text(value: str) -> Step:
    return Step("text", text=value)


def flat(content: object) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def once(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


class ScriptedHandler(BaseHTTPRequestHandler):
    """What every scripted server's handler does: read and keep each JSON body, answer with a whole body
    (`Connection: close`), and say nothing on stderr."""

    protocol_version = "HTTP/1.1"
    log_file = ""  # where set, one JSON line per request: {"path", "body"}

    def log_message(self, format: str, *args: object) -> None:
        pass

    def read_logged(self) -> Any:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            request = {"unparsed": raw.decode("utf-8", "replace")}
        if self.log_file:
            with open(self.log_file, "a", encoding="utf-8") as log:
                log.write(json.dumps({"path": self.path, "body": request}) + "\n")
        return request

    def send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        if kind == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        self.close_connection = True

    def send_json(self, data: object) -> None:
        self.send(200, json.dumps(data).encode())


class Wire:
    """One API's shape: how a request counts the turns already taken and carries tool results, and how a step is
    written back. ``side`` is the text a side query (a request without tools) gets. Chat Completions, Responses
    and Gemini count the model's tool calls as turns, as the servers they replace decided (no tool result yet:
    the call; one back: text), whatever turns of its own an agent puts in the conversation; the Messages wire,
    whose Claude Code scripts go on in text, counts every assistant message."""

    side = HANDLED
    models: object = {"object": "list", "data": [{"id": "m", "object": "model"}]}  # what a GET answers

    def offers_tools(self, request: Mapping[str, Any]) -> bool:
        return bool(request.get("tools"))

    def turns(self, request: Mapping[str, Any]) -> int:
        raise NotImplementedError

    def results(self, request: Mapping[str, Any]) -> list[str]:
        """The tool results this request carries back to the model."""
        raise NotImplementedError

    def answer(self, handler: ScriptedHandler, request: Mapping[str, Any], step: Step, n: int) -> None:
        raise NotImplementedError

    def other(self, handler: ScriptedHandler, request: Mapping[str, Any]) -> bool:
        """Answer a request that is not a turn of the conversation (a token count); False if it is one."""
        return False


@dataclass
class Chat(Wire):
    """OpenAI Chat Completions: `tool_calls` on an assistant message, results as `tool` messages."""

    side: str = HANDLED

    def turns(self, request: Mapping[str, Any]) -> int:
        messages = [m for m in request.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant"]
        return sum(1 for m in messages if m.get("tool_calls"))

    def results(self, request: Mapping[str, Any]) -> list[str]:
        return [flat(m.get("content")) for m in request.get("messages") or [] if isinstance(m, dict) and m.get("role") == "tool"]

    def answer(self, handler: ScriptedHandler, request: Mapping[str, Any], step: Step, n: int) -> None:
        message: dict[str, Any]
        if step.kind == "tool":
            function = {"name": step.name, "arguments": json.dumps(step.input)}
            call = {"index": 0, "id": f"call_scripted_{n}", "type": "function", "function": function}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": step.text}, "stop"
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        base = {"id": "chatcmpl-scripted", "created": 0, "model": request.get("model", "m")}
        if not request.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            handler.send_json({**base, "object": "chat.completion", "choices": [choice], "usage": usage})
            return
        chunks = [
            {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
            {**base, "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage},
        ]
        stream = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"
        handler.send(200, stream, "text/event-stream")


def _event(kind: str, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


class Responses(Wire):
    """OpenAI Responses: a `function_call` output item, results as `function_call_output` input items."""

    models = {"object": "list", "data": [], "models": []}
    usage = {
        "input_tokens": 1,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }

    def turns(self, request: Mapping[str, Any]) -> int:
        return sum(1 for i in request.get("input") or [] if isinstance(i, dict) and i.get("type") == "function_call")

    def results(self, request: Mapping[str, Any]) -> list[str]:
        items = request.get("input") or []
        return [flat(i.get("output")) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]

    def answer(self, handler: ScriptedHandler, request: Mapping[str, Any], step: Step, n: int) -> None:
        item: dict[str, Any]
        if step.kind == "tool":
            item = {"type": "function_call", "id": f"fc_{n:04d}", "call_id": f"call_{n:04d}", "name": step.name}
            item.update(arguments=json.dumps(step.input), status="completed")
        else:
            content = [{"type": "output_text", "text": step.text, "annotations": []}]
            item = {"type": "message", "id": f"msg_{n:04d}", "role": "assistant", "status": "completed", "content": content}
        rid = f"resp_{n:04d}"
        head = {"id": rid, "object": "response", "status": "in_progress", "output": []}
        done = {"id": rid, "object": "response", "status": "completed", "output": [item], "usage": self.usage}
        events = (
            _event("response.created", response=head),
            _event("response.output_item.added", output_index=0, item={**item, "status": "in_progress"}),
            _event("response.output_item.done", output_index=0, item=item),
            _event("response.completed", response=done),
        )
        handler.send(200, b"".join(events), "text/event-stream")


@dataclass
class Gemini(Wire):
    """The Gemini API: a `functionCall` part, results as `functionResponse` parts. Side queries (the model router,
    next-speaker checks, summaries: `:generateContent`, or any request without tools) get JSON text."""

    models = {"models": []}
    usage = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}
    side: str = json.dumps(
        {"reasoning": "scripted", "model_choice": "flash", "next_speaker": "user", "complexity_reasoning": "scripted"}
        | {"complexity_score": 1}
    )

    def turns(self, request: Mapping[str, Any]) -> int:
        contents = [c for c in request.get("contents") or [] if isinstance(c, dict) and c.get("role") == "model"]
        return sum(1 for c in contents if any(isinstance(p, dict) and "functionCall" in p for p in c.get("parts") or []))

    def results(self, request: Mapping[str, Any]) -> list[str]:
        parts = [p for c in request.get("contents") or [] if isinstance(c, dict) for p in c.get("parts") or []]
        return [json.dumps(p["functionResponse"]) for p in parts if isinstance(p, dict) and "functionResponse" in p]

    def other(self, handler: ScriptedHandler, request: Mapping[str, Any]) -> bool:
        path = handler.path.split("?", 1)[0]
        if path.endswith(":countTokens"):
            handler.send_json({"totalTokens": 1})
            return True
        if path.endswith(":generateContent"):
            handler.send_json(self.body(text(self.side)))
            return True
        return False

    def body(self, step: Step) -> dict[str, Any]:
        part = {"functionCall": {"name": step.name, "args": dict(step.input)}} if step.kind == "tool" else {"text": step.text}
        candidate = {"content": {"role": "model", "parts": [part]}, "index": 0, "finishReason": "STOP"}
        return {"candidates": [candidate], "usageMetadata": self.usage}

    def answer(self, handler: ScriptedHandler, request: Mapping[str, Any], step: Step, n: int) -> None:
        handler.send(200, b"data: " + json.dumps(self.body(step)).encode() + b"\r\n\r\n", "text/event-stream")


def _sse(kind: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


@dataclass
class Messages(Wire):
    """Anthropic's Messages API: a `tool_use` block (its input streamed in two `input_json_delta`s), results as
    `tool_result` blocks. Only `/v1/messages` is a turn; a token count is counted, any other path gets `{}`."""

    model: str = "claude-sonnet-4-5-20250929"
    side: str = "ok"
    models: object = field(default_factory=dict)

    def turns(self, request: Mapping[str, Any]) -> int:
        return sum(1 for m in request.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")

    def results(self, request: Mapping[str, Any]) -> list[str]:
        out = []
        for msg in request.get("messages") or []:
            for block in msg.get("content", []) if isinstance(msg, dict) and isinstance(msg.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(flat(block.get("content")))
        return out

    def other(self, handler: ScriptedHandler, request: Mapping[str, Any]) -> bool:
        path = handler.path.split("?", 1)[0]
        if path.endswith("/v1/messages"):
            return False
        handler.send_json({"input_tokens": 10} if path.endswith("/count_tokens") else {})
        return True

    def message(self, step: Step, n: int, content: list[dict[str, Any]], stop: str | None, usage: dict[str, int]) -> dict[str, Any]:
        return {
            "id": f"msg_{n:04d}",
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def answer(self, handler: ScriptedHandler, request: Mapping[str, Any], step: Step, n: int) -> None:
        stop = "tool_use" if step.kind == "tool" else "end_turn"
        if not request.get("stream"):
            block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": dict(step.input)}
            content = block if step.kind == "tool" else {"type": "text", "text": step.text}
            handler.send_json(self.message(step, n, [content], stop, {"input_tokens": 10, "output_tokens": 5}))
            return
        usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        out = [_sse("message_start", {"type": "message_start", "message": self.message(step, n, [], None, usage)})]
        if step.kind == "tool":
            start: dict[str, Any] = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": {}}
            payload = json.dumps(step.input)
            half = len(payload) // 2
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in (payload[:half], payload[half:]) if part]
        else:
            start, deltas = {"type": "text", "text": ""}, [{"type": "text_delta", "text": step.text}]
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start}))
        out += [_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": d}) for d in deltas]
        out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        delta = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}
        out += [_sse("message_delta", delta), _sse("message_stop", {"type": "message_stop"})]
        handler.send(200, b"".join(out), "text/event-stream")


CHAT = Chat()
RESPONSES = Responses()
GEMINI = Gemini()
MESSAGES = Messages()


class Model:
    """The scripted model on 127.0.0.1, serving ``wire`` from ``steps`` in a thread of the test's process."""

    def __init__(
        self,
        wire: Wire,
        steps: Sequence[Step],
        final: str = HANDLED,
        ready_file: Path | None = None,
        asking: Callable[[], None] | None = None,
        told: Callable[[], None] | None = None,
    ) -> None:
        self.wire = wire
        self.steps = list(steps)
        self.final = final
        self.ready_file = ready_file
        # Called once each: just before the first tool call goes to the agent, and when its result comes back.
        self.asking = asking
        self.told = told
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="scripted-model", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Model:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def step_for(self, request: Mapping[str, Any]) -> tuple[Step, int]:
        """The step answering ``request`` and its number (which names the ids in the answer)."""
        if not self.wire.offers_tools(request):
            return text(self.wire.side), 9000
        turns = self.wire.turns(request)
        return (self.steps[turns] if turns < len(self.steps) else text(self.final)), turns

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + READY_WAIT
        while self.ready_file is not None and not self.ready_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    def main_requests(self) -> list[dict[str, Any]]:
        """The requests of the agent loop (those that offered tools)."""
        with self.lock:
            return [r for r in self.requests if self.wire.offers_tools(r)]

    def tool_results(self) -> list[str]:
        """What the agent told the model about its tool calls, in order, once each."""
        return once([result for request in self.main_requests() for result in self.wire.results(request)])

    def _handler(self) -> type[ScriptedHandler]:
        model = self

        class Handler(ScriptedHandler):
            def do_HEAD(self) -> None:
                self.send(200, b"")

            def do_GET(self) -> None:
                self.send_json(model.wire.models)

            def do_POST(self) -> None:
                request = self.read_logged()
                if model.wire.other(self, request):
                    return
                carries = model.wire.offers_tools(request) and bool(model.wire.results(request))
                with model.lock:
                    model.requests.append(request)
                    told, model.told = (model.told, None) if carries else (None, model.told)
                if told is not None:
                    told()
                step, n = model.step_for(request)
                if step.kind == "tool":
                    model.wait_until_ready()
                    with model.lock:
                        asking, model.asking = model.asking, None
                    if asking is not None:
                        asking()
                model.wire.answer(self, request, step, n)

        return Handler


def on_path(directory: Path, environ: Mapping[str, str]) -> str:
    """PATH with ``directory`` first, as a user's shell has an installed agent."""
    return f"{directory}{os.pathsep}{environ.get('PATH', os.environ.get('PATH', ''))}"
