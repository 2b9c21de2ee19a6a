"""Qwen Code's hook protocol: Claude Code's events, input and answers, under its own name and tools.

Qwen Code kept Claude Code's hook format, so the Claude Code mapping serves it; what differs is
that its calls name ``qwen`` as their agent and its tools (``run_shell_command``, ``edit``, ...) are
put into hookd's vocabulary with Qwen Code's table. The HTTP endpoint answers it on ``/qwen/EVENT``
and the Python bridge runs as ``hookd bridge qwen``.
"""

from __future__ import annotations

from hookd.agents.claude_code.protocol import DIALECT as CLAUDE_CODE

AGENT = "qwen"
DIALECT = CLAUDE_CODE._replace(agent=AGENT)  # Claude Code's table, naming Qwen Code (its tool names are the vocabulary's qwen table)
