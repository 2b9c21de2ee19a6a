"""The agents hookd's HTTP endpoint answers, each by its dialect: POST /AGENT/EVENT, answered in its format.

One table for the endpoint, the shim (whose deny table is made from it) and the answer to what the
endpoint cannot handle; an agent reached over HTTP, or through the shim, is a row here and its protocol.
"""

from __future__ import annotations

from hookd.agents.claude_code import protocol as claude_code
from hookd.agents.codex import protocol as codex
from hookd.agents.dialect import Dialect
from hookd.agents.qwen import protocol as qwen

DIALECTS: dict[str, Dialect] = {d.agent: d for d in (claude_code.DIALECT, codex.DIALECT, qwen.DIALECT)}
DEFAULT = claude_code.DIALECT.agent  # the endpoint's first agent, whose path an old install may lack


def prefix(agent: str) -> str:
    """The path under which the endpoint takes ``agent``'s events."""
    return f"/{agent}/"
