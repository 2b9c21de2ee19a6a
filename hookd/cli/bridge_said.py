"""What `hookd bridge install` and `uninstall` say for any agent: the one line the step returned, or the error
that stopped it; and after an install, what the agent the user runs cannot do when it is older than its
registry row's minimum (hookd/agents/registry.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hookd.agents.registry import Agent


def said(step: Callable[[], str], errors: tuple[type[BaseException], ...]) -> int:
    """Run ``step`` and print its line (0), or fail naming one of ``errors`` it raised (1)."""
    from hookd.cli.common import fail

    try:
        result = step()
    except errors as exc:
        return fail(str(exc))
    sys.stdout.write(result + "\n")
    return 0


def warn_older(row: Agent, cli: str | None, prefix: str = "hookd: ") -> None:
    """``prefix`` and what the agent found (``cli``: the one named, else on PATH) cannot do, when it is older."""
    if row.version is None:
        return
    from hookd.agents import agent_version

    older = agent_version.problem(row, agent_version.of(row, cli))
    if older:
        sys.stderr.write(f"{prefix}{older}\n")
