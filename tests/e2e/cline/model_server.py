"""Cline's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions, streamed or not as asked;
its shell tool `run_commands` (`{"commands": [...]}`: one call may carry several commands)."""

from __future__ import annotations

from tests.e2e.scripted import CHAT, Step, tool

WIRE = CHAT


def shell(*commands: str) -> Step:
    return tool("run_commands", {"commands": list(commands)})
