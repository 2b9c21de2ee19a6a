"""Which pi the user runs (its row's ``version`` in hookd/agents/registry.py, asked by hookd/agents/agent_version.py),
and where that pi's own loader of extensions is, for install to load the extension as pi does."""

from __future__ import annotations

import os
from pathlib import Path

from hookd.agents import agent_version, registry
from hookd.agents.pi.protocol import AGENT

Found = agent_version.Found
find_cli = agent_version.find_cli


def detect(explicit: str | None = None, environ: dict[str, str] | None = None) -> Found:
    """Ask pi (``explicit``, else ``pi`` on PATH) its version. Never raises: what went wrong is in ``why``."""
    return agent_version.of(registry.agent(AGENT), explicit, environ)


def package_index(found: Found) -> Path | None:
    """pi's package entry (dist/index.js beside the CLI's dist/cli.js), whose loader loads extensions as pi does."""
    if found.cli is None:
        return None
    index = Path(os.path.realpath(found.cli)).with_name("index.js")
    return index if index.is_file() else None
