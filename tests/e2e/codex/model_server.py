"""Codex's side of the scripted model (tests/e2e/scripted.py): the OpenAI Responses API, streamed (a
`function_call` output item, results as `function_call_output` input items); its shell tool `exec_command`
(`{"cmd": COMMAND}`)."""

from __future__ import annotations

from tests.e2e.scripted import RESPONSES, Step, tool

WIRE = RESPONSES


def shell(command: str) -> Step:
    return tool("exec_command", {"cmd": command})
