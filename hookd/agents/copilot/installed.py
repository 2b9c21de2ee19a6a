"""Copilot CLI's installs: hookd's hook file in the user's ~/.copilot/hooks and a repository's .github/hooks.

What keeps an installed hook file from guarding, as ``hookd doctor`` reports it: a Copilot CLI older than
the bridge supports, a repository folder Copilot does not trust (it then never loads .github/hooks), and
``disableAllHooks``. Copilot 1.0.102 reads that key per file: in hookd.json it turns hookd's hooks off; in
settings.json it turns off that file's inline hooks only (observed), which doctor mentions as a warning,
since the key's documentation says all hooks.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Mapping
from typing import Any

from hookd.agents import agent_version, registry, safe_write
from hookd.agents.copilot import install
from hookd.agents.copilot.protocol import AGENT, TOOL_EVENT
from hookd.agents.registry import Hook, Install

# The first Copilot CLI whose preToolUse hook applies a rewrite (modifiedArgs), the row's minimum; the others, older still.
MIN_VERSION = registry.minimum_version(AGENT)
OLDER = (
    ((1, 0, 24), "a preToolUse rewrite (modifiedArgs) is ignored"),
    ((1, 0, 16), "permissionRequest hooks do not run"),
    ((0, 0, 422), "~/.copilot/hooks is not read at all: user-level hooks never run"),
)
REPO_HOOKS_IN_PROMPT_MODE = (1, 0, 49)  # before it, `copilot -p` does not load .github/hooks even in a trusted folder


def locations(cwd: str) -> list[str]:
    return [install.path_for("user"), install.path_for("project", cwd=cwd)]


@functools.lru_cache(maxsize=1)
def _version() -> agent_version.Found:
    return agent_version.of(registry.agent(AGENT))


def version_problems(found: agent_version.Found, project: bool) -> list[str]:
    """What will not work with the Copilot CLI ``found``, one line each (none when it is recent enough or unknown)."""
    if not found.older_than(MIN_VERSION) and not (project and found.older_than(REPO_HOOKS_IN_PROMPT_MODE)):
        return []
    broken = [what for since, what in OLDER if found.older_than(since)]
    if project and found.older_than(REPO_HOOKS_IN_PROMPT_MODE):
        broken.append("`copilot -p` does not load a repository's .github/hooks")
    minimum = ".".join(map(str, REPO_HOOKS_IN_PROMPT_MODE if project else MIN_VERSION))
    return [f"Copilot CLI {found.text()} ({found.cli}) is older than {minimum}, which hookd's bridge needs here: " + "; ".join(broken)]


def _json_with_comments(data: bytes) -> Any:
    """config.json as Copilot writes it: JSON after `//` comment lines."""
    text = "\n".join(line for line in data.decode("utf-8").splitlines() if not line.lstrip().startswith("//"))
    return json.loads(text or "null")


def trusted(project: str, environ: Mapping[str, str] | None = None) -> bool | None:
    """Whether Copilot trusts ``project`` (it or a folder above it in config.json's trustedFolders, or
    COPILOT_ALLOW_ALL=true with it as the working directory); None when config.json cannot be read."""
    env = os.environ if environ is None else environ
    if env.get("COPILOT_ALLOW_ALL") == "true" and os.path.abspath(os.getcwd()) == os.path.abspath(project):
        return True
    try:
        config = _json_with_comments(safe_write.read(os.path.join(install.home(dict(env)), "config.json")) or b"{}")
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    folders = config.get("trustedFolders") if isinstance(config, dict) else None
    here = os.path.realpath(project)
    for folder in folders if isinstance(folders, list) else []:
        if (
            isinstance(folder, str)
            and folder
            and (here == os.path.realpath(folder) or here.startswith(os.path.realpath(folder).rstrip("/") + "/"))
        ):
            return True
    return False


def _project_of(path: str) -> str | None:
    """The repository of a hook file in its .github/hooks, else None."""
    hooks = os.path.dirname(os.path.abspath(path))
    github = os.path.dirname(hooks)
    if os.path.basename(hooks) == "hooks" and os.path.basename(github) == ".github":
        return os.path.dirname(github)
    return None


def _settings_disable(path: str) -> bool:
    try:
        settings = json.loads((safe_write.read(path) or b"{}").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(settings, dict) and settings.get("disableAllHooks") is True


def inspect(path: str) -> Install:
    count = install.ours(path)
    if not count:
        return Install(AGENT, path, 0)
    problems: list[str] = []
    try:
        doc = json.loads((safe_write.read(path) or b"{}").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        doc = {}
    if isinstance(doc, dict) and doc.get("disableAllHooks") is True:
        problems.append("it sets disableAllHooks, so Copilot CLI runs none of hookd's hooks: remove the key, or install again")
    project = _project_of(path)
    if project is not None and trusted(project) is False:
        problems.append(f"Copilot CLI does not trust {project}, so it never loads these hooks. {install.TRUST_NOTE}")
    problems += version_problems(_version(), project is not None)
    warnings: list[str] = []
    where = [os.path.join(install.home(), "settings.json")] + (
        [os.path.join(project, ".github", "copilot", "settings.json")] if project else []
    )
    for settings in where:
        if _settings_disable(settings):
            warnings.append(
                f"{settings} sets disableAllHooks: Copilot CLI {_version().text()} turns off only that file's inline hooks with it, "
                "not hookd's hook file, but its documentation says all hooks: check that hookd's still run (`hookd tail`)"
            )
    return Install(AGENT, path, count, tuple(problems), tuple(warnings))


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    """The bridge's preToolUse commands in hookd.json."""
    try:
        doc = json.loads((safe_write.read(path) or b"{}").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    handlers = doc.get("hooks", {}).get(TOOL_EVENT, []) if isinstance(doc, dict) and isinstance(doc.get("hooks"), dict) else []
    found = []
    for handler in handlers if isinstance(handlers, list) else []:
        line = handler.get("bash") if isinstance(handler, dict) else None
        if isinstance(line, str) and install.MARK in line:
            found.append(Hook(AGENT, path, "command", line, fail_closed="--fail-closed" in line))
    return found


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    return answer.get("permissionDecision") == "deny"


def canary_input(session: str, cwd: str, command: str) -> dict[str, Any]:
    """Copilot's own preToolUse input for its shell tool running ``command``."""
    return {
        "sessionId": session,
        "timestamp": int(time.time() * 1000),
        "cwd": cwd,
        "toolName": "bash",
        "toolArgs": {"command": command, "description": "hookd doctor canary"},
    }
