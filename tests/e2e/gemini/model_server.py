"""Gemini CLI's side of the scripted model (tests/e2e/scripted.py): the Gemini API (`:streamGenerateContent` as
server-sent events; side queries, `:generateContent` and any request without tools, get JSON text; `:countTokens`
a count); its shell tool `run_shell_command` (`{command, description}`).

``Handler``, ``candidate`` and ``USAGE`` are what bench/gemini_shim.py builds its own scripted Gemini API from."""

from __future__ import annotations

from typing import Any

from tests.e2e.scripted import GEMINI, ScriptedHandler, Step, tool

WIRE = GEMINI
USAGE = GEMINI.usage


def shell(command: str) -> Step:
    return tool("run_shell_command", {"command": command, "description": "run it"})


def candidate(parts: list[dict[str, Any]], finish: str | None = "STOP") -> dict[str, Any]:
    body: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        body["finishReason"] = finish
    return body


class Handler(ScriptedHandler):
    """A handler that logs each request and answers whole bodies: a bench's own script goes in its do_POST."""

    def do_GET(self) -> None:
        self.send_json(GEMINI.models)
