"""Where each agent's bridge is installed and what state it is in, read from the files alone.

For the commands that check installs (``hookd doctor``, ``hookd bridge status``): ``locations`` lists the
files an install of each agent can live in (the user's, the project's, and every file recorded in hookd's
state directory), ``inspect`` reads one and says what install left there and what is wrong with it. Nothing
here writes or runs anything.
"""

from __future__ import annotations

import os

from hookd.agents import install_record, registry
from hookd.agents.registry import Install

AGENTS = registry.NAMES


def locations(agent: str, cwd: str | None = None, state: str | None = None) -> list[str]:
    """The files an install of ``agent`` can be in: the user's, the project's (``cwd``), the recorded ones."""
    found = registry.agent(agent).reader().locations(cwd or os.getcwd())
    if state is not None:
        found += [r.path for r in install_record.records(state) if r.agent == agent and r.role == "settings"]
    return list(dict.fromkeys(os.path.abspath(p) for p in found))


def inspect(agent: str, path: str) -> Install:
    """What install left in ``path`` for ``agent``, and what is wrong with it."""
    return registry.agent(agent).reader().inspect(path)
