"""Factory Droid's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions, streamed or not as
asked; its shell tool `Execute` (`{summary, command}`: the summary is required); side queries (titles, summaries)
answered with a title."""

from __future__ import annotations

from tests.e2e.scripted import Chat, Step, tool

WIRE = Chat(side="Scripted title")


def shell(command: str) -> Step:
    return tool("Execute", {"summary": "Run the requested command", "command": command})
