"""Where an agent keeps its own files, found as the agent finds them: the folder a variable names, else one under
the home directory (``$COPILOT_HOME`` else ``~/.copilot``, ``$CLINE_DIR`` else ``~/.cline``, ``$XDG_CONFIG_HOME``
else ``~/.config``), and the folder of a scope (the user's under it, the project's under the project): one
:class:`Folders` row per agent.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple


def project(cwd: str | None, *parts: str) -> str:
    """``parts`` under the project ``cwd`` (None: the working directory)."""
    return os.path.join(cwd or os.getcwd(), *parts)


class Folders(NamedTuple):
    """Where an agent's files of one kind are, for each scope: one row per agent."""

    variable: str  # the variable naming the agent's own folder
    home: tuple[str, ...]  # else that folder under the home directory
    user: tuple[str, ...]  # the user's scope, under the agent's folder
    project: tuple[str, ...]  # the project's scope, under the project
    expand: bool = False  # a ``~`` in the variable's value is the home directory

    def agent(self, environ: Mapping[str, str] | None = None) -> str:
        """The agent's own folder."""
        env = os.environ if environ is None else environ
        named = env.get(self.variable)
        if named:
            return os.path.expanduser(named) if self.expand else named
        return os.path.join(env.get("HOME") or os.path.expanduser("~"), *self.home)

    def path(self, scope: str, environ: Mapping[str, str] | None = None, cwd: str | None = None) -> str:
        """The path for ``scope``: the project's under ``cwd`` (None: the working directory), else the user's."""
        if scope == "project":
            return project(cwd, *self.project)
        return os.path.join(self.agent(environ), *self.user)
