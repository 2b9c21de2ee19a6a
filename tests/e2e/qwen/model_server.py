"""Qwen Code's side of the scripted model (tests/e2e/scripted.py): OpenAI Chat Completions, streamed or not as
asked; its shell tool `run_shell_command` (`{command, description, is_background}`); side queries (next-speaker
checks) answered in JSON."""

from __future__ import annotations

import json

from tests.e2e.scripted import Chat, Step, tool

WIRE = Chat(side=json.dumps({"reasoning": "scripted", "next_speaker": "user"}))


def shell(command: str) -> Step:
    return tool("run_shell_command", {"command": command, "description": "run it", "is_background": False})
