"""Cline's installs: hookd's hook files in the user's ~/.cline/hooks and a project's .clinerules/hooks.

What keeps them from guarding, as ``hookd doctor`` reports it: a Cline older than the bridge supports, a
hook file of hookd's that is not executable, and (a warning) the user's own PreToolUse hook files beside
hookd's, whose ``overrideInput`` would replace hookd's deny if Cline runs them after it.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.agents import agent_version, registry
from hookd.agents.cline import install
from hookd.agents.cline.protocol import AGENT, INSTALLED_EVENTS, TOOL_EVENT
from hookd.agents.registry import Hook, Install

# The first Cline CLI whose hooks were seen to work as the bridge needs (the 3.x CLI; 2.x was another program).
MIN_VERSION = registry.minimum_version(AGENT)


def locations(cwd: str) -> list[str]:
    return [install.folder_for("user"), install.folder_for("project", cwd=cwd)]


@functools.lru_cache(maxsize=1)
def _version() -> agent_version.Found:
    return agent_version.of(registry.agent(AGENT))


def version_problems(found: agent_version.Found) -> list[str]:
    if not found.older_than(MIN_VERSION):
        return []
    minimum = ".".join(map(str, MIN_VERSION))
    return [
        f"Cline {found.text()} ({found.cli}) is older than {minimum}, the first Cline the bridge was verified with: before the 3.x "
        "CLI, hook files were read elsewhere and answered otherwise, and a deny may not stop the tool"
    ]


def inspect(path: str) -> Install:
    files = install.installed_files(path) if os.path.isdir(path) else []
    if not files:
        return Install(AGENT, path, 0)
    problems = [f"{f} is not executable: Cline does not run it" for f in files if not os.access(f, os.X_OK)]
    missing = [e for e in INSTALLED_EVENTS if os.path.join(path, e) not in files]
    if TOOL_EVENT in missing:
        problems.append(f"hookd's {TOOL_EVENT} file is missing: Cline's tool calls never reach hookd")
    problems += version_problems(_version())
    project = os.path.dirname(os.path.dirname(path)) if path.endswith(os.path.join(".clinerules", "hooks")) else os.getcwd()
    others = [f for folder in install.search_folders(project) for f in install.foreign(folder, TOOL_EVENT)]
    warnings = (
        (
            f"{', '.join(others)} also run on {TOOL_EVENT}, beside hookd's; Cline takes the last overrideInput, so one of theirs "
            "can replace hookd's deny: `hookd import cline` takes them into hookd",
        )
        if others
        else ()
    )
    return Install(AGENT, path, len(files), tuple(problems), warnings)


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    """hookd's PreToolUse hook file in ``path`` (the canary runs the file, as Cline does)."""
    file = os.path.join(path, TOOL_EVENT)
    if not install.is_ours(file):
        return []
    text = Path(file).read_text(encoding="utf-8", errors="replace")
    return [Hook(AGENT, path, "command", file, fail_closed="--fail-closed" in text)]


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    """A deny: the shell call replaced by hookd's deny command, or the run cancelled."""
    replaced = answer.get("overrideInput")
    commands = replaced.get("commands") if isinstance(replaced, dict) else None
    denied = isinstance(commands, list) and any(isinstance(c, str) and "blocked by hookd: " in c for c in commands)
    return denied or answer.get("cancel") is True


def canary_input(session: str, cwd: str, command: str) -> dict[str, Any]:
    """Cline's own PreToolUse input for its shell tool running ``command``."""
    commands = [command]
    return {
        "clineVersion": "",
        "timestamp": datetime.datetime.now(datetime.UTC).isoformat(),
        "taskId": session,
        "workspaceRoots": [cwd],
        "workspaceInfo": {"rootPath": cwd, "hint": os.path.basename(cwd)},
        "hookName": "tool_call",
        "iteration": 1,
        "tool_call": {"id": "hookd-canary", "name": "run_commands", "input": {"commands": commands}},
        "preToolUse": {"toolName": "run_commands", "parameters": {"commands": json.dumps(commands)}},
    }
