"""opencode's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions as its provider package
(`@ai-sdk/openai-compatible`) asks for them, streamed; side queries (its session titles) get a title; its shell
tool `bash` (`{command, description}`)."""

from __future__ import annotations

from tests.e2e.scripted import Chat, Step, tool

WIRE = Chat(side="scripted title")


def shell(command: str) -> Step:
    return tool("bash", {"command": command, "description": "run it"})
