"""What the bridge writes into a Claude Code settings file, and how it is recognised again.

By default every Claude Code event reaches hookd with no process per event: an HTTP hook to the
daemon's loopback endpoint wherever Claude Code accepts one, the compiled shim (or, with no C
compiler, the Python bridge) for the events that take only commands. The endpoint's secret goes in
an ``env`` block, which Claude Code hands to its HTTP hooks through ``$HOOKD_BRIDGE_TOKEN``
(``allowedEnvVars``). ``--command`` installs the Python bridge as a command for every event instead.
Every event the bridge maps is installed, whatever hooks hookd has: a hook that answers "nothing to
say" costs Claude Code nothing it can measure, and a guard must never miss a session.

Each hook carries two times: the agent's ``timeout`` and, strictly below it, hookd's deadline
(hookd/agents/deadlines.py): ``--timeout`` for the shim and the Python bridge, the X-Hookd-Timeout
header for the HTTP hooks the daemon answers. ``is_ours`` recognises exactly the groups install
writes, today's and those of earlier versions (``?events=`` URLs), so uninstall finds them all.
hookd/agents/settings_install.py writes them into a file and takes them out again.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from hookd.agents import deadlines, endpoints, registry
from hookd.agents.claude_code.protocol import EXIT_2_ONLY, INSTALLED_EVENTS, SESSION_END

BRIDGE_ARGS = "bridge claude-code"
# Where earlier versions kept the file's bytes from before install (now in hookd's state directory).
BACKUP_SUFFIX = ".hookd-backup"
SHIM_NAME = "claude-shim"
TOKEN_ENV = "HOOKD_BRIDGE_TOKEN"
# Claude Code's default hook timeout: hookd's deadline is a margin below it.
DEFAULT_TIMEOUT = 600
# Every event Claude Code fires (its settings schema lists them), in its order.
CLAUDE_EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "PreModelSwitch", "PostModelSwitch", "PermissionRequest", "PermissionDenied", "Setup",
    "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate",
    "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged", "DirectoryAdded", "MessageDisplay",
    "PreSkillShellCommand",
)  # fmt: skip
# A hook on these replaces what Claude Code does itself (creating and removing git worktrees), so the
# bridge is not installed there: it would break worktrees for everyone who has no hook of their own.
NOT_INSTALLED = {
    "WorktreeCreate": "a WorktreeCreate hook replaces Claude Code's own worktree creation",
    "WorktreeRemove": "a WorktreeRemove hook replaces Claude Code's own worktree removal",
}
EVENTS = tuple(e for e in dict.fromkeys((*CLAUDE_EVENTS, *INSTALLED_EVENTS)) if e not in NOT_INSTALLED)
# Claude Code skips HTTP hooks on these ("HTTP hooks are not supported for SessionStart"): they get a command.
COMMAND_ONLY = frozenset({"SessionStart", "Setup"})
# Claude Code blocks these only when a command hook exits 2, which an HTTP hook cannot do: the shim
# (or the Python bridge) runs there, so that a hookd deny blocks them as a direct hook's exit 2 would.
COMMAND_EVENTS = COMMAND_ONLY | EXIT_2_ONLY
# The agent's environment the HTTP hooks forward to hookd (Claude Code fills only the variables listed).
FORWARDED_ENV = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "PATH", "HOME")
# Installs of earlier versions named the events installed with them (``?events=``): still recognised.
_OUR_URL = re.compile(r"http://127\.0\.0\.1:[0-9]{1,5}/(claude-code|qwen)/[A-Za-z0-9]{1,64}(\?events=[A-Za-z,]{1,2000})?")
# The agents that speak Claude Code's settings format, each answered on its own path (``/AGENT/EVENT``).
AGENTS = ("claude-code", "qwen")
_HTTP_KEYS = frozenset({"type", "url", "headers", "allowedEnvVars", "timeout", "onFailure"})
_COMMAND_KEYS = frozenset({"type", "command", "timeout"})
SCOPES = {"user": "~/.claude/settings.json", "project": ".claude/settings.json", "local": ".claude/settings.local.json"}
# A project's uncommitted settings file, beside its committed one: where the secret of a project install goes.
LOCAL_NAME = "settings.local.json"


class SettingsError(Exception):
    pass


def path_for(scope: str) -> str:
    return os.path.abspath(os.path.expanduser(SCOPES[scope]))


def default_hookd() -> str:
    """How the agent should start this hookd: an absolute path, since agents do not share our PATH."""
    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "hookd" and os.path.isfile(argv0):
        return shlex.quote(os.path.abspath(argv0))
    found = shutil.which("hookd")
    if found:
        return shlex.quote(os.path.abspath(found))
    return f"{shlex.quote(sys.executable)} -m hookd"


def bridge_command(command: str | None, extra: str = "", timeout: int = DEFAULT_TIMEOUT, agent: str = "claude-code") -> str:
    """The Python bridge as a command, giving up a margin before the agent's ``timeout``."""
    words = [command or default_hookd(), "bridge", agent, "--timeout", deadlines.text(deadlines.deadline(timeout))]
    return " ".join([*words, extra.strip()] if extra.strip() else words)


def with_event(event: str) -> str:
    """The Python bridge's ``--event``: the event it runs on, so that an input it cannot read at all is
    still denied where the event decides (``hookd bridge claude-code --help``)."""
    return f" --event {event}" if event else ""


def group_for(command: str, timeout: int | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return {"hooks": [hook]}


def secret_home(path: str) -> str | None:
    """Where the secret goes for the hooks in ``path``: a project's committed ``.claude/settings.json`` keeps
    it in the uncommitted ``settings.local.json`` beside it (Claude Code reads ``env`` from both); None: in
    ``path`` itself."""
    full = os.path.abspath(path)
    if os.path.basename(full) != "settings.json" or os.path.basename(os.path.dirname(full)) != ".claude":
        return None
    if full == path_for("user"):
        return None
    return os.path.join(os.path.dirname(full), LOCAL_NAME)


def relying_on(local: str) -> str | None:
    """The committed settings file whose hooks read their secret from ``local`` (a project's
    ``settings.local.json``), else None."""
    full = os.path.abspath(local)
    if os.path.basename(full) != LOCAL_NAME:
        return None
    committed = os.path.join(os.path.dirname(full), "settings.json")
    return committed if secret_home(committed) == full else None


class Route(NamedTuple):
    """How the installed hooks reach hookd: HTTP on ``port`` where the agent accepts it, else ``command_for``."""

    port: int
    token: str
    token_file: str
    shim: str | None  # the compiled shim; None: the Python bridge (``fallback``) runs the command events
    fallback: str
    timeout: int = DEFAULT_TIMEOUT  # how long the agent waits for each hook, in seconds
    fail_closed: bool = False
    # The agent the hooks are installed for: its calls name it, and its tools are read with its table.
    agent: str = "claude-code"
    # The events that run a command (the shim) rather than an HTTP hook.
    commands: frozenset[str] = COMMAND_EVENTS

    def installed(self) -> tuple[str, ...]:
        return EVENTS

    def agent_timeout(self, event: str) -> float:
        """How long the agent waits for ``event``'s hook: ``timeout``, but less on SessionEnd for an agent whose row
        gives its session-end hooks less time (Claude Code)."""
        budget = registry.agent(self.agent).session_end_budget
        if event == SESSION_END and budget is not None:
            return min(float(self.timeout), budget)
        return float(self.timeout)

    def deadline(self, event: str) -> str:
        """hookd's deadline for ``event``'s hook, strictly below the agent's, as written."""
        return deadlines.text(deadlines.deadline(self.agent_timeout(event)))

    def http_hook(self, event: str) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer ${TOKEN_ENV}"}
        headers.update({f"X-Hookd-Env-{name}": f"${name}" for name in FORWARDED_ENV})
        # The daemon answers within this, so the agent hears its answer (or its deny) rather than a timeout.
        headers[deadlines.HEADER] = self.deadline(event)
        hook: dict[str, Any] = {
            "type": "http",
            "url": f"http://127.0.0.1:{self.port}/{self.agent}/{event}",
            "headers": headers,
            "allowedEnvVars": [TOKEN_ENV, *FORWARDED_ENV],
            "timeout": self.timeout,
        }
        if self.fail_closed and event == "PreToolUse":
            # Claude Code blocks the tool call when the request fails (hookd down): --fail-closed for HTTP.
            hook["onFailure"] = "block"
        return hook

    def command_for(self, event: str) -> str:
        closed = " --fail-closed" if self.fail_closed else ""
        if self.shim:
            agent = f" --agent {self.agent}" if self.agent != endpoints.DEFAULT else ""  # the shim's own default
            return (
                f"{shlex.quote(self.shim)} {event} {self.port} {shlex.quote(self.token_file)} --timeout {self.deadline(event)}"
                f"{closed}{agent}"
            )
        return f"{self.fallback} bridge {self.agent} --timeout {self.deadline(event)}{closed}{with_event(event)}"

    def group(self, event: str) -> dict[str, Any]:
        if event in self.commands:
            return {"hooks": [{"type": "command", "command": self.command_for(event), "timeout": self.timeout}]}
        return {"hooks": [self.http_hook(event)]}


def _our_command(command: Any) -> bool:
    if not isinstance(command, str):
        return False
    if re.search(r"(^|\s)bridge (" + "|".join(map(re.escape, AGENTS)) + r")(\s|$)", command):
        return True
    try:
        argv0 = shlex.split(command)[0]
    except (ValueError, IndexError):
        return False
    return os.path.basename(argv0) == SHIM_NAME


def is_ours(group: Any) -> bool:
    """A matcher group exactly as install writes it."""
    if not isinstance(group, dict) or set(group) != {"hooks"} or not isinstance(group["hooks"], list) or len(group["hooks"]) != 1:
        return False
    hook = group["hooks"][0]
    if not isinstance(hook, dict):
        return False
    if hook.get("type") == "command":
        return set(hook) <= _COMMAND_KEYS and _our_command(hook.get("command"))
    if hook.get("type") == "http":
        url = hook.get("url")
        return set(hook) <= _HTTP_KEYS and isinstance(url, str) and _OUR_URL.fullmatch(url) is not None
    return False


@dataclass(frozen=True, slots=True)
class Style:
    indent: int | str | None = 2
    newline: bool = True

    @classmethod
    def of(cls, text: str) -> Style:
        m = re.search(r"\n([ \t]+)\S", text)
        indent: int | str | None = None
        if m:
            ws = m.group(1)
            indent = len(ws) if set(ws) == {" "} else ws
        return cls(indent, text.endswith("\n"))

    def dump(self, doc: Any) -> str:
        separators = (",", ": ") if self.indent is not None else (",", ":")
        return json.dumps(doc, indent=self.indent, ensure_ascii=False, separators=separators) + ("\n" if self.newline else "")


def parse(data: bytes | None, path: str) -> dict[str, Any]:
    if data is None or not data.strip():
        return {}
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path} is not UTF-8: {exc}") from None
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); fix it first, nothing was changed") from None
    if not isinstance(doc, dict):
        raise SettingsError(f"{path} must hold a JSON object, not {type(doc).__name__}")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or any(not isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f"{path}: 'hooks' must map event names to lists of matcher groups; nothing was changed")
    return doc


def count(doc: dict[str, Any], ours: Callable[[Any], bool] = is_ours) -> int:
    """How many of install's matcher groups ``doc`` holds."""
    return sum(1 for groups in doc.get("hooks", {}).values() for g in groups if ours(g))


def strip(doc: dict[str, Any], before: dict[str, Any] | None, ours: Callable[[Any], bool] = is_ours, keep_secret: bool = False) -> None:
    """Take out of ``doc`` what install put in: our groups, the secret (unless ``keep_secret``), and the
    containers install created (those ``before``, the file before install, did not have; None: all)."""
    before_hooks = before.get("hooks", {}) if before is not None and "hooks" in before else None
    hooks = doc.get("hooks", {})
    for event in list(hooks):
        hooks[event] = [g for g in hooks[event] if not ours(g)]
        if not hooks[event] and (before_hooks is None or event not in before_hooks):
            del hooks[event]
    if "hooks" in doc and not hooks and before_hooks is None:
        del doc["hooks"]
    if not keep_secret:
        strip_secret(doc, before)


def strip_secret(doc: dict[str, Any], before: dict[str, Any] | None) -> None:
    env = doc.get("env")
    if isinstance(env, dict) and TOKEN_ENV in env:
        del env[TOKEN_ENV]
        if not env and (before is None or "env" not in before):
            del doc["env"]


def has_secret(doc: dict[str, Any]) -> bool:
    env = doc.get("env")
    return isinstance(env, dict) and TOKEN_ENV in env


class Layout(NamedTuple):
    """A settings file in Claude Code's layout: the events to hook, the matcher group each gets, how to
    recognise one (for uninstall), how to describe the install, and the agent it is for."""

    events: tuple[str, ...]
    group: Callable[[str], dict[str, Any]]
    ours: Callable[[Any], bool]
    description: str
    agent: str = "claude-code"


def route_layout(route: Route) -> Layout:
    """Claude Code's HTTP hooks and the shim (or the Python bridge) where a command is needed."""
    commands = ", ".join(sorted(route.commands))
    runner = f"the shim {route.shim}" if route.shim else f"the Python bridge ({route.fallback} {BRIDGE_ARGS})"
    how = f"HTTP hooks on 127.0.0.1:{route.port}; {runner} for {commands}; timeout {route.timeout} s"
    return Layout(route.installed(), route.group, is_ours, how)


def command_layout(command: str, timeout: int) -> Layout:
    """The Python bridge (``command``, which gives up before ``timeout``) as a command for every event."""
    return Layout(EVENTS, lambda event: group_for(command + with_event(event), timeout), is_ours, f"{command}; timeout {timeout} s")
