"""GitHub Copilot CLI's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions, streamed or
not as asked; its shell tool `bash` (`{command, description}`)."""

from __future__ import annotations

from tests.e2e.scripted import CHAT, Step, tool

WIRE = CHAT


def shell(command: str) -> Step:
    return tool("bash", {"command": command, "description": "run it"})
