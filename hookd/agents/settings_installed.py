"""Reading the installs of the agents whose hooks live in a JSON settings file in Claude Code's layout.

Claude Code, Qwen Code, Gemini CLI and Factory Droid keep ``hooks.EVENT`` lists of matcher groups; what
install left there, and the hooks each runs on its tool-call event, are read alike, told apart only by which
groups are hookd's (``ours``) and which events install sends (``wanted``). Each agent's reader of its installs
is one :class:`Reader` row.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from hookd.agents import registry, safe_write, settings_file
from hookd.agents.registry import Hook, Install
from hookd.agents.settings_file import SettingsError

Ours = Callable[[Any], bool]


def inspect(agent: str, path: str, ours: Ours, wanted: Iterable[str]) -> Install:
    """What install left in the settings file ``path``: hookd's groups, and the events it no longer sends."""
    try:
        doc = settings_file.parse(safe_write.read(path), path)
    except (SettingsError, OSError) as exc:
        return Install(agent, path, 0, (str(exc),))
    hooks = doc.get("hooks", {})
    have = {event for event, groups in hooks.items() if any(ours(g) for g in groups)}
    if not have:
        return Install(agent, path, 0)
    problems = []
    missing = [e for e in wanted if e not in have]
    if missing:
        # An earlier version installed only the events that had hooks; a guard on the others never runs.
        problems.append(f"events not sent to hookd: {', '.join(missing)} (install again to send every event)")
    return Install(agent, path, settings_file.count(doc, ours), tuple(problems))


def settings_env(paths: list[str]) -> dict[str, str]:
    """The ``env`` of the agent's settings files, later files over earlier ones (user, project, local)."""
    env: dict[str, str] = {}
    for path in paths:
        try:
            doc = settings_file.parse(safe_write.read(path), path)
        except (SettingsError, OSError):
            continue
        block = doc.get("env")
        if isinstance(block, dict):
            env.update((k, v) for k, v in block.items() if isinstance(k, str) and isinstance(v, str))
    return env


def hooks(agent: str, event: str, path: str, env: Mapping[str, str], ours: Ours) -> list[Hook]:
    """hookd's hooks on ``event`` in the settings file ``path``: HTTP hooks and commands."""
    try:
        doc = settings_file.parse(safe_write.read(path), path)
    except (SettingsError, OSError):
        return []
    found = []
    for group in doc.get("hooks", {}).get(event, []):
        if not ours(group):
            continue
        for hook in group.get("hooks", []):
            if hook.get("type") == "http":
                allowed = hook.get("allowedEnvVars")
                found.append(
                    Hook(
                        agent,
                        path,
                        "http",
                        str(hook.get("url", "")),
                        {str(k): str(v) for k, v in (hook.get("headers") or {}).items()},
                        tuple(allowed) if isinstance(allowed, list) else None,
                        dict(env),
                        hook.get("onFailure") == "block",
                    )
                )
            elif hook.get("type") == "command":
                command = str(hook.get("command", ""))
                found.append(Hook(agent, path, "command", command, env=dict(env), fail_closed="--fail-closed" in command))
    return found


def permission_denied(answer: Mapping[str, Any]) -> bool:
    """Whether an answer in Claude Code's format (also Qwen Code's and Codex's) stops the tool call."""
    specific = answer.get("hookSpecificOutput")
    return isinstance(specific, dict) and specific.get("permissionDecision") == "deny"


class Reader(NamedTuple):
    """The reader of one agent's installs in its settings files (registry.Installed)."""

    agent: str
    scopes: Mapping[str, str]  # scope -> its settings file: the user's from ``~``, the others from the project
    ours: Ours
    wanted: Iterable[str]  # the events install sends
    blocks: Callable[[Mapping[str, Any]], bool] = permission_denied  # whether an answer stops the tool call
    merged_env: bool = False  # the agent merges every settings file's env, whichever holds the hook (Claude Code)

    def locations(self, cwd: str) -> list[str]:
        user = os.path.abspath(os.path.expanduser(self.scopes["user"]))
        return [user, *(os.path.join(cwd, path) for scope, path in self.scopes.items() if scope != "user")]

    def inspect(self, path: str) -> Install:
        return inspect(self.agent, path, self.ours, self.wanted)

    def hooks(self, path: str, env: Mapping[str, str]) -> list[Hook]:
        return hooks(self.agent, registry.agent(self.agent).tool_event, path, env, self.ours)

    def hook_env(self, cwd: str, path: str) -> dict[str, str]:
        return settings_env(self.locations(cwd) if self.merged_env else [path])

    def blocked(self, answer: Mapping[str, Any]) -> bool:
        return self.blocks(answer)
