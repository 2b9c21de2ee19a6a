"""pi's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions as its `openai-completions`
provider asks for them (streamed); its shell tool `bash` (`{command, description}`)."""

from __future__ import annotations

from tests.e2e.scripted import CHAT, Step, tool

WIRE = CHAT


def shell(command: str) -> Step:
    return tool("bash", {"command": command, "description": "run it"})
