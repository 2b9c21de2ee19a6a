"""The agents hookd bridges, one row each, and what an install of each leaves in the agent's files.

Where every agent is handled alike (``hookd doctor``'s canary, ``hookd bridge status``, the install
commands), the code reads this table and the agent's own reader of its installs (``installed``, a module
with the functions of :class:`Installed`). Adding an agent is a row here, its folder with its protocol,
install and reader, and its installer in the command line: no branch on the agent's name anywhere else.

The rows are plain data and the readers are imported only when asked for, so whatever lists the agents
(the command line's choices, the endpoint's routes) pays for none of their install code.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol, cast

from hookd.core import vocabulary

CANARY_COMMAND = "true"  # what doctor's canary tool call would run, were it run: nothing


class Install(NamedTuple):
    """What install left in one of the agent's files."""

    agent: str
    path: str  # the settings file (for a plugin, the plugin file)
    hooks: int  # the hooks (matcher groups, or the plugin) install left there; 0: not installed
    problems: tuple[str, ...] = ()  # what keeps it from guarding as install meant, one line each
    warnings: tuple[str, ...] = ()  # what may keep it from guarding, for the user to check, one line each


class Hook(NamedTuple):
    """One hook an agent runs on its tool-call event: ``kind`` http, command or plugin."""

    agent: str
    source: str  # the file it was read from
    kind: str
    target: str  # the URL, the command line, or the plugin file
    headers: dict[str, str] = {}
    allowed_env: tuple[str, ...] | None = None  # the variables an HTTP hook may expand (None: all)
    env: dict[str, str] = {}  # the agent's own environment additions (settings' ``env``)
    fail_closed: bool = False


class Installed(Protocol):
    """An agent's reader of its installs: where they can be, what each holds, the hooks the agent runs."""

    def locations(self, cwd: str) -> list[str]:
        """The files an install can be in, the user's first, in the order of the row's ``scopes``."""
        ...

    def inspect(self, path: str) -> Install:
        """What install left in ``path``, and what is wrong with it."""
        ...

    def hooks(self, path: str, env: Mapping[str, str]) -> list[Hook]:
        """hookd's hooks on the agent's tool-call event in ``path`` (``env``: the agent's environment additions)."""
        ...

    def hook_env(self, cwd: str, path: str) -> dict[str, str]:
        """The environment the agent adds for its hooks from its settings (its ``env`` blocks), for ``path``."""
        ...

    def blocked(self, answer: Mapping[str, Any]) -> bool:
        """Whether an answer in the agent's format stops the tool call."""
        ...


class Agent(NamedTuple):
    name: str  # on the command line, and the ``agent`` of every event hookd records for it
    tool_event: str  # the event the agent sends before a tool runs
    shell: str  # its shell tool
    shell_input: Mapping[str, Any]  # the shell tool's input besides the command, as the agent sends it
    canary_fields: Mapping[str, Any]  # the fields its hook input carries besides the common ones
    scopes: tuple[str, ...]  # the install options that name ``locations()`` in order ("": the default, the user's)
    installed: str  # the module that reads its installs (:class:`Installed`)
    settings_option: bool = True  # install takes ``--settings FILE`` for a file of the agent's elsewhere

    @property
    def title(self) -> str:
        return vocabulary.AGENT_TITLES[self.name]

    def reader(self) -> Installed:
        return cast(Installed, importlib.import_module(self.installed))


_DESCRIBED = {"description": "hookd doctor canary"}
_CLAUDE_FIELDS = {"permission_mode": "default", "tool_use_id": "hookd-canary"}

AGENTS: tuple[Agent, ...] = (
    Agent(
        "claude-code", "PreToolUse", "Bash", _DESCRIBED, _CLAUDE_FIELDS, ("", "--project", "--local"), "hookd.agents.claude_code.installed"
    ),
    Agent("qwen", "PreToolUse", "run_shell_command", _DESCRIBED, _CLAUDE_FIELDS, ("", "--project"), "hookd.agents.qwen.installed"),
    Agent("gemini", "BeforeTool", "run_shell_command", _DESCRIBED, {}, ("", "--project"), "hookd.agents.gemini.installed"),
    Agent(
        "codex",
        "PreToolUse",
        "Bash",
        {},
        {"turn_id": "hookd-canary", "model": "hookd-canary", "permission_mode": "default", "tool_use_id": "hookd-canary"},
        ("", "--project"),
        "hookd.agents.codex.installed",
    ),
    Agent("opencode", "tool.execute.before", "bash", _DESCRIBED, {}, ("", "--project"), "hookd.agents.opencode.installed", False),
    Agent(
        "droid",
        "PreToolUse",
        "Execute",
        {"summary": "hookd doctor canary"},
        {"permission_mode": "auto-low"},
        ("", "--project"),
        "hookd.agents.droid.installed",
    ),
    # Copilot CLI and Cline name their input fields their own way: their readers give the canary's input (canary_input).
    Agent("copilot", "preToolUse", "bash", _DESCRIBED, {}, ("", "--project"), "hookd.agents.copilot.installed"),
    Agent("cline", "PreToolUse", "run_commands", {}, {}, ("", "--project"), "hookd.agents.cline.installed", False),
    Agent("pi", "tool_call", "bash", _DESCRIBED, {}, ("", "--project"), "hookd.agents.pi.installed", False),
)
NAMES = tuple(a.name for a in AGENTS)
_BY_NAME = {a.name: a for a in AGENTS}


def agent(name: str) -> Agent:
    """The row of the agent called ``name``; KeyError names the agents there are."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no agent {name!r} (hookd bridges {', '.join(NAMES)})") from None


def shell_input(row: Agent, command: str = CANARY_COMMAND) -> dict[str, Any]:
    """The agent's shell tool input for ``command``."""
    return {"command": command, **row.shell_input}
