"""A persistent hook in a few lines: ``serve(handler)``.

    from hookd_client.worker import serve

    def check(event):
        if "rm -rf" in event["payload"].get("args", {}).get("command", ""):
            return {"decision": "deny", "reason": "no recursive force delete"}
        return None

    serve(check)

``serve`` speaks the worker protocol (docs/protocol.md, "Worker protocol") on
stdin/stdout until stdin closes. The handler gets each request as a dict
(``id``, ``point``, ``session``, ``project``, ``hook``, ``payload``) and returns
a HookDecision dict, a :class:`~hookd_client.messages.Decision`, or None. It may
be a plain function or an ``async def``. An exception becomes an ``error``
answer (and a traceback on stderr); the worker keeps serving.

Plain functions run one at a time unless ``threads`` > 1; async handlers run
concurrently, each request as its own task. Either way the daemon never sends
more than the hook's ``concurrency`` at once, and ``threads`` defaults to it
(the daemon passes it as HOOKD_CONCURRENCY).

Anything the handler prints goes to stderr (the daemon keeps it for its log):
stdout carries answers only.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any

import msgspec

Handler = Callable[[dict[str, Any]], Any]

_decode = msgspec.json.Decoder().decode


def _default_threads() -> int:
    try:
        return max(1, int(os.environ.get("HOOKD_CONCURRENCY", "1")))
    except ValueError:
        return 1


class _Answers:
    """Writes one answer line at a time, from any thread."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.lock = threading.Lock()
        self.encoder = msgspec.json.Encoder()

    def send(self, rid: Any, result: Any = None, error: str | None = None) -> None:
        if error is None:
            try:
                line = self.encoder.encode({"id": rid, "decision": result})
            except (TypeError, msgspec.EncodeError) as exc:
                line = self.encoder.encode({"id": rid, "error": f"the handler's answer cannot be sent as JSON: {exc}"})
        else:
            line = self.encoder.encode({"id": rid, "error": error})
        with self.lock:
            self.out.write(line + b"\n")
            self.out.flush()

    def failed(self, rid: Any, exc: BaseException) -> None:
        traceback.print_exception(exc, file=sys.stderr)
        sys.stderr.flush()
        self.send(rid, error=f"{type(exc).__name__}: {exc}")


def _parse(line: bytes, answers: _Answers) -> dict[str, Any] | None:
    try:
        event = _decode(line)
    except msgspec.DecodeError as exc:
        print(f"hookd worker: ignoring a line that is not JSON: {exc}", file=sys.stderr)
        return None
    if not isinstance(event, dict) or "id" not in event:
        print("hookd worker: ignoring a request without an id", file=sys.stderr)
        return None
    return event


def _protocol_stdout() -> IO[bytes]:
    """A private handle on the real stdout; fd 1 (and sys.stdout) then point at stderr."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    return out


def serve(
    handler: Handler,
    *,
    threads: int | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> None:
    """Answer requests from stdin until it closes. See the module docstring."""
    source = stdin if stdin is not None else sys.stdin.buffer
    answers = _Answers(stdout if stdout is not None else _protocol_stdout())
    if inspect.iscoroutinefunction(handler):
        asyncio.run(_serve_async(handler, source, answers))
        return
    threads = threads or _default_threads()
    if threads <= 1:
        for line in source:
            event = _parse(line, answers)
            if event is not None:
                _run_sync(handler, event, answers)
        return
    with ThreadPoolExecutor(threads, thread_name_prefix="hookd-worker") as pool:
        for line in source:
            event = _parse(line, answers)
            if event is not None:
                pool.submit(_run_sync, handler, event, answers)


def _run_sync(handler: Handler, event: dict[str, Any], answers: _Answers) -> None:
    try:
        result = handler(event)
        if inspect.isawaitable(result):
            result = asyncio.run(_awaited(result))
    except Exception as exc:
        answers.failed(event["id"], exc)
        return
    answers.send(event["id"], result)


async def _awaited(result: Awaitable[Any]) -> Any:
    return await result


async def _serve_async(handler: Handler, source: IO[bytes], answers: _Answers) -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 26, loop=loop)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), source)
    tasks: set[asyncio.Task[None]] = set()
    while True:
        line = await reader.readline()
        if not line:
            break
        event = _parse(line, answers)
        if event is None:
            continue
        task = loop.create_task(_run_async(handler, event, answers))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if tasks:
        await asyncio.gather(*tasks)


async def _run_async(handler: Handler, event: dict[str, Any], answers: _Answers) -> None:
    try:
        result = await handler(event)
    except Exception as exc:
        answers.failed(event["id"], exc)
        return
    answers.send(event["id"], result)
