"""Where an agent keeps its own files, found as the agent finds them: the folder a variable names, else one under
the home directory (``$COPILOT_HOME`` else ``~/.copilot``, ``$CLINE_DIR`` else ``~/.cline``, ``$XDG_CONFIG_HOME``
else ``~/.config``), and the folder of a scope (the user's or the project's) under it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping


def configured(environ: Mapping[str, str] | None, variable: str, *under_home: str) -> str:
    """The folder ``variable`` names in ``environ`` (None: this process's), else ``~/under_home...``."""
    env = os.environ if environ is None else environ
    return env.get(variable) or os.path.join(env.get("HOME") or os.path.expanduser("~"), *under_home)


def project(cwd: str | None, *parts: str) -> str:
    """``parts`` under the project ``cwd`` (None: the working directory)."""
    return os.path.join(cwd or os.getcwd(), *parts)
