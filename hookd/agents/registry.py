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

from hookd.agents import deadlines
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


class Version(NamedTuple):
    """How to ask an agent's CLI its version (hookd/agents/agent_version.py), and what hangs on it."""

    cli: str  # the command that prints it with ``--version``
    minimum: tuple[int, int, int]  # the first release the bridge supports (with ``on_failure``: the first that honours onFailure)
    older: str = ""  # what does not work before ``minimum``, as doctor and install say it ("": the agent's reader says it)
    needs: str = "the oldest the bridge supports"  # what ``minimum`` is, after "is older than X, "
    fix: str = ""  # doctor's fix for an older one
    severity: str = "warn"  # doctor's status for an older one
    unknown: str = ""  # doctor's warning when the version cannot be told ("": none)
    env: Mapping[str, str] = {}  # added to the environment the CLI is asked in
    on_stderr: bool = False  # the CLI prints its version on stderr
    # The CLI is its npm package's own JavaScript, which prints the package's version: read from the package.json
    # of the package whose ``bin`` the CLI is, rather than starting the CLI (not so for the agents whose npm
    # package only loads a native binary: Droid's binary is 0.225.2 in a package that says 0.225.1).
    packaged: bool = False
    # The version decides only whether an HTTP hook's ``onFailure: block`` refuses a call hookd did not answer.
    on_failure: bool = False


class Agent(NamedTuple):
    name: str  # on the command line, and the ``agent`` of every event hookd records for it
    tool_event: str  # the event the agent sends before a tool runs
    shell: str  # its shell tool
    shell_input: Mapping[str, Any]  # the shell tool's input besides the command, as the agent sends it
    canary_fields: Mapping[str, Any]  # the fields its hook input carries besides the common ones
    scopes: tuple[str, ...]  # the install options that name ``locations()`` in order ("": the default, the user's)
    installed: str  # the module that reads its installs (:class:`Installed`): its functions, or its ``READER``
    settings_option: bool = True  # install takes ``--settings FILE`` for a file of the agent's elsewhere
    timestamp: str = ""  # the hook input's ``timestamp``, as a time.strftime format of the UTC time ("": the input has none)
    version: Version | None = None  # how its CLI says its version and the release the bridge needs (None: not asked)
    fails_closed: bool = False  # install fails closed unless told not to (else --fail-closed asks for it)
    # The agent runs only the hooks it trusted: its reader's ``untrusted(path)`` names hookd's it has not (doctor).
    trusts_hooks: bool = False
    # The module whose ``canary(hook, session_id, cwd, env)`` loads the agent's plugin file as the agent does and calls it
    # with doctor's tool call ("": its hooks are HTTP or commands, which the canary sends itself).
    loader: str = ""
    # How long the agent gives all its session-end hooks together, in seconds, when less than its hook timeout (None: no less).
    session_end_budget: float | None = None

    @property
    def title(self) -> str:
        return vocabulary.AGENT_TITLES[self.name]

    def reader(self) -> Installed:
        module = importlib.import_module(self.installed)
        return cast(Installed, getattr(module, "READER", module))  # a row of a shared reader, or the module's functions


_DESCRIBED = {"description": "hookd doctor canary"}
# Claude Code before 2.1.295 ignores ``"onFailure": "block"`` on an HTTP hook (with the daemon down, the tool runs):
# found by running releases from 2.1.197 (the last that accepts Node 18 and 20) to 2.1.332 offline against a
# PreToolUse HTTP hook on a closed port. Install then puts PreToolUse on the shim; doctor names such a Claude Code.
_CLAUDE_VERSION = Version("claude", (2, 1, 295), on_failure=True)
# The bridge was built and checked against Droid 0.225.2: hooks in settings.json's ``hooks`` in Claude Code's
# format, the shell tool ``Execute`` with ``{summary, command}``, a deny by permissionDecision or exit code 2.
_DROID_VERSION = Version(
    "droid",
    (0, 225, 2),
    "its hooks may not be read from settings.json's `hooks` key in Claude Code's format, nor its shell tool be "
    "`Execute` with `command`: tool calls may not reach hookd, or reach it unnamed",
    fix="upgrade Factory Droid (`npm install -g @factory/cli`)",
    severity="fail",
)
# The extension relies on pi's extension API as 0.65.0 has it: ``session_start`` with a reason for every session
# (before, a switched session came as session_switch / session_fork, which the extension does not handle),
# ``session_shutdown`` in print and JSON modes (0.63.0), a tool_call handler's changes to ``event.input`` applied
# (documented since 0.63.1). ``pi --version`` prints on stderr; PI_OFFLINE skips its update check.
_PI_VERSION = Version(
    "pi",
    (0, 65, 0),
    "a session switched with /new, /resume or /fork is never attached to hookd (its session hooks do not run), "
    "a `pi -p` run before 0.63.0 never disposes its session, and a guard's rewrite of a tool call is not "
    "guaranteed before 0.63.1",
    needs="which hookd's extension needs",
    fix="upgrade pi to 0.65.0 or later",
    unknown="cannot tell whether it runs hookd's extension as meant",
    env={"PI_OFFLINE": "1"},
    on_stderr=True,
    packaged=True,
)
_CLAUDE_FIELDS = {"permission_mode": "default", "tool_use_id": "hookd-canary"}

AGENTS: tuple[Agent, ...] = (
    Agent(
        "claude-code",
        "PreToolUse",
        "Bash",
        _DESCRIBED,
        _CLAUDE_FIELDS,
        ("", "--project", "--local"),
        "hookd.agents.claude_code.installed",
        version=_CLAUDE_VERSION,
        session_end_budget=deadlines.CLAUDE_SESSION_END_BUDGET,
    ),
    Agent("qwen", "PreToolUse", "run_shell_command", _DESCRIBED, _CLAUDE_FIELDS, ("", "--project"), "hookd.agents.qwen.installed"),
    Agent(
        "gemini",
        "BeforeTool",
        "run_shell_command",
        _DESCRIBED,
        {},
        ("", "--project"),
        "hookd.agents.gemini.installed",
        timestamp="%Y-%m-%dT%H:%M:%SZ",
    ),
    Agent(
        "codex",
        "PreToolUse",
        "Bash",
        {},
        {"turn_id": "hookd-canary", "model": "hookd-canary", "permission_mode": "default", "tool_use_id": "hookd-canary"},
        ("", "--project"),
        "hookd.agents.codex.installed",
        trusts_hooks=True,
    ),
    Agent(
        "opencode",
        "tool.execute.before",
        "bash",
        _DESCRIBED,
        {},
        ("", "--project"),
        "hookd.agents.opencode.installed",
        False,
        loader="hookd.agents.opencode.canary",
    ),
    Agent(
        "droid",
        "PreToolUse",
        "Execute",
        {"summary": "hookd doctor canary"},
        {"permission_mode": "auto-low"},
        ("", "--project"),
        "hookd.agents.droid.installed",
        version=_DROID_VERSION,
    ),
    # Copilot CLI and Cline name their input fields their own way: their readers give the canary's input (canary_input).
    # Their readers name what an older one cannot do (copilot: the first that applies modifiedArgs; cline: the 3.x CLI).
    Agent(
        "copilot",
        "preToolUse",
        "bash",
        _DESCRIBED,
        {},
        ("", "--project"),
        "hookd.agents.copilot.installed",
        version=Version("copilot", (1, 0, 24)),
    ),
    Agent(
        "cline",
        "PreToolUse",
        "run_commands",
        {},
        {},
        ("", "--project"),
        "hookd.agents.cline.installed",
        False,
        version=Version("cline", (3, 0, 65)),
    ),
    Agent(
        "pi",
        "tool_call",
        "bash",
        _DESCRIBED,
        {},
        ("", "--project"),
        "hookd.agents.pi.installed",
        False,
        version=_PI_VERSION,
        fails_closed=True,
        loader="hookd.agents.pi.canary",
    ),
)
NAMES = tuple(a.name for a in AGENTS)
_BY_NAME = {a.name: a for a in AGENTS}


def agent(name: str) -> Agent:
    """The row of the agent called ``name``; KeyError names the agents there are."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no agent {name!r} (hookd bridges {', '.join(NAMES)})") from None


def minimum_version(name: str) -> tuple[int, int, int]:
    """The first release of the agent ``name`` that the bridge supports, as its row's ``version`` says."""
    v = agent(name).version
    if v is None:
        raise KeyError(f"the {name} row names no version")
    return v.minimum


def shell_input(row: Agent, command: str = CANARY_COMMAND) -> dict[str, Any]:
    """The agent's shell tool input for ``command``."""
    return {"command": command, **row.shell_input}
