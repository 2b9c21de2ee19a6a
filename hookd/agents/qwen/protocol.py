"""Qwen Code's hook protocol: Claude Code's events, input and answers, under its own name and tools.

Qwen Code kept Claude Code's hook format, so the Claude Code mapping serves it; what differs is
that its calls name ``qwen`` as their agent and its tools (``run_shell_command``, ``edit``, ...) are
put into hookd's vocabulary with Qwen Code's table. The HTTP endpoint answers it on ``/qwen/EVENT``
and the Python bridge runs as ``hookd bridge qwen``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.agents import dialect
from hookd.agents.claude_code.protocol import DIALECT as CLAUDE_CODE
from hookd.agents.claude_code.protocol import (  # noqa: F401  (the names the bridges look for on an agent's mapping)
    ROUTES,
    SESSION_END,
    BadInput,
    Call,
    Verdict,
    exit_status,
    fail_closed,
    render,
)

AGENT = "qwen"
DIALECT = CLAUDE_CODE._replace(agent=AGENT)  # Claude Code's table, naming Qwen Code (its tool names are the vocabulary's qwen table)


def route(hook_input: Any, environ: Mapping[str, str], carry_env: bool = True) -> Call:
    """The hookd call for one Qwen Code hook input, as Claude Code's, naming Qwen Code. Raises BadInput."""
    return dialect.route(DIALECT, hook_input, environ, carry_env)
