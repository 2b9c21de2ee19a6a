"""An agent's hook contract from the hook's side, as one table (``HookFormat``): what a hook written for the
agent is given and what its answer means. Each agent's ``hooks.py`` fills one; hookd/agents/adapter.py
runs an imported hook with it. Pure data: the daemon's runners read the same contracts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple


class NotADecision(Exception):
    """The hook failed the way the agent reports as a non-blocking error: no decision, exit 1."""


class HookFormat(NamedTuple):
    """One agent's hook contract, from the hook's side."""

    prog: str  # how errors name this command
    description: str
    option: str  # the one option the imported hook is written with: "--matcher" or "--event"
    option_help: str
    # (hookd's payload, the option's value, hookd's environment, the working directory) -> the agent's hook input
    hook_input: Callable[[Mapping[str, Any], str | None, Mapping[str, str], str], dict[str, Any]]
    # (hookd's environment, the payload, the hook input) -> the environment the agent gives its hook
    environment: Callable[[Mapping[str, str], Mapping[str, Any], Mapping[str, Any]], dict[str, str]]
    # (the option's value, the event, the hook input) -> whether the hook runs (it abstains otherwise)
    selected: Callable[[str | None, str, Mapping[str, Any]], bool]
    # (CMD, its environment) -> the argv started
    argv: Callable[[list[str], Mapping[str, str]], list[str]]
    # the hook input -> the working directory the agent starts its hook in (None: this one)
    cwd: Callable[[Mapping[str, Any]], str | None]
    # (event, exit code, stdout, stderr, the payload) -> the HookDecision as JSON data (None: abstain). Raises NotADecision.
    answer: Callable[[str, int, str, str, Mapping[str, Any]], dict[str, Any] | None]
