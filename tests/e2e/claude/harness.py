"""Drive the real Claude Code CLI offline: a scripted Messages API on 127.0.0.1 and a sandboxed HOME.

The CLI comes from this directory's package.json (``npm ci`` here). The model
is a script: each step is what the assistant says next, a tool call or text,
streamed as server-sent events exactly as the Messages API does
(message_start, content_block_start/delta/stop with ``input_json_delta``,
message_delta, message_stop). Which step answers a request is the number of
assistant turns already in it, so a retried request gets the same answer.
Requests that carry no tools (titles, summaries) get a short text.

Usage::

    with ScriptedModel([tool("Bash", {"command": "echo hi"}), text("done")]) as model:
        result = run_claude(model, home=tmp / "home", cwd=project, prompt="go")
        result.json["permission_denials"], model.requests

Every request the CLI sent is kept in ``model.requests`` (parsed JSON), so a
test can see what reached the model: a tool's result, a hook's context.

With ``ready_file``, an answer carrying a tool call waits (at most a minute)
until that file exists: a test uses it to let another program attach its
session hooks before the agent runs the tool.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CLAUDE = HERE / "node_modules" / ".bin" / "claude"
# The last Claude Code npm installs on Node 18 and 20 (2.1.197), which ignores onFailure on HTTP hooks.
NODE20_CLAUDE = HERE.parent / "claude-node20" / "node_modules" / ".bin" / "claude"
MODEL = "claude-sonnet-4-5-20250929"


def claude_binary(path: Path = CLAUDE) -> Path | None:
    """The CLI installed at ``path``, or None."""
    return path if path.exists() and os.access(path, os.X_OK) else None


def require_claude(path: Path = CLAUDE) -> Path:
    """The CLI, or skip the test; in CI (``$CI`` set) a missing CLI fails instead of skipping."""
    import pytest

    found = claude_binary(path)
    if found is not None:
        return found
    suite = path.parent.parent.parent
    if os.environ.get("CI"):
        pytest.fail(f"the Claude Code CLI is missing at {path}; run `npm ci` in {suite} (make e2e-deps)")
    pytest.skip(f"the Claude Code CLI is not installed at {path} (npm ci in {suite})")


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


def _sse(kind: str, data: Mapping[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode()


def stream(step: Step, n: int) -> bytes:
    """The server-sent events of one assistant message."""
    usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {
        "id": f"msg_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    out = [_sse("message_start", {"type": "message_start", "message": message})]
    if step.kind == "tool":
        block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": {}}
        payload = json.dumps(step.input)
        half = len(payload) // 2
        deltas = [{"type": "input_json_delta", "partial_json": part} for part in (payload[:half], payload[half:]) if part]
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": step.text}]
        stop = "end_turn"
    out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}))
    out += [_sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": d}) for d in deltas]
    out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    delta = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}
    out.append(_sse("message_delta", delta))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def whole(step: Step, n: int) -> dict[str, Any]:
    """The same message, for a request that did not ask for a stream."""
    content: dict[str, Any]
    if step.kind == "tool":
        content = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": step.name, "input": dict(step.input)}
    else:
        content = {"type": "text", "text": step.text}
    return {
        "id": f"msg_{n:04d}",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [content],
        "stop_reason": "tool_use" if step.kind == "tool" else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


class ScriptedModel:
    """A Messages API on 127.0.0.1 that answers from a script."""

    def __init__(self, steps: Sequence[Step], final: str = "done", ready_file: Path | None = None) -> None:
        self.steps = list(steps)
        self.final = final
        self.ready_file = ready_file
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, name="scripted-model", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> ScriptedModel:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def step_for(self, request: Mapping[str, Any]) -> tuple[Step, int]:
        if not request.get("tools"):
            return text("ok"), 9000
        turns = sum(1 for msg in request.get("messages", []) if isinstance(msg, dict) and msg.get("role") == "assistant")
        if turns < len(self.steps):
            return self.steps[turns], turns
        return text(self.final), turns

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + 60
        while self.ready_file is not None and not self.ready_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    def main_requests(self) -> list[dict[str, Any]]:
        """The requests of the agent loop (those that offered tools)."""
        with self.lock:
            return [r for r in self.requests if r.get("tools")]

    def tool_results(self) -> list[str]:
        """The text of every tool result the agent sent back to the model, in order, once each."""
        seen: list[str] = []
        for request in self.main_requests():
            for msg in request.get("messages", []):
                for block in msg.get("content", []) if isinstance(msg.get("content"), list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        body = block.get("content")
                        flat = body if isinstance(body, str) else json.dumps(body)
                        if flat not in seen:
                            seen.append(flat)
        return seen

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    request = json.loads(raw or b"{}")
                except ValueError:
                    request = {}
                path = self.path.split("?", 1)[0]
                if not path.endswith("/v1/messages"):
                    if path.endswith("/count_tokens"):
                        self._json(200, {"input_tokens": 10})
                    else:
                        self._json(200, {})
                    return
                with model.lock:
                    model.requests.append(request)
                step, n = model.step_for(request)
                if step.kind == "tool":
                    model.wait_until_ready()
                if request.get("stream"):
                    body = stream(step, n)
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.send_header("cache-control", "no-cache")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    self._json(200, whole(step, n))

            def _json(self, status: int, data: Any) -> None:
                body = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


@dataclass
class Session:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        """The `--output-format json` result (the last JSON line of stdout)."""
        for line in reversed(self.stdout.strip().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError(f"claude printed no JSON result (exit {self.returncode}):\n{self.stdout}\n{self.stderr}")


def claude_env(model: ScriptedModel, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an offline session: HOME in the sandbox, the model on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY="sk-ant-offline-test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )
    env.pop("NO_COLOR", None)
    if extra:
        env.update(extra)
    return env


def write_settings(home: Path, settings: Mapping[str, Any]) -> Path:
    """~/.claude/settings.json in the sandbox."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


def run_claude(
    model: ScriptedModel,
    home: Path,
    cwd: Path,
    prompt: str = "go",
    args: Sequence[str] = ("--allowedTools", "Bash"),
    env: Mapping[str, str] | None = None,
    timeout: float = 180,
    cli: Path = CLAUDE,
) -> Session:
    """One `claude -p` session, run to its end, by the CLI at ``cli``."""
    binary = require_claude(cli)
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    argv = [str(binary), "-p", prompt, "--output-format", "json", "--model", MODEL, *args]
    done = subprocess.run(
        argv, cwd=cwd, env=claude_env(model, home, env), capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    return Session(done.returncode, done.stdout, done.stderr)


def have_npm() -> bool:
    return shutil.which("npm") is not None
