"""Where each agent's bridge is installed and what state it is in, read from the files alone.

For the commands that check installs (``hookd doctor``, ``hookd bridge status``): ``locations`` lists the
files an install of each agent can live in (the user's, the project's, and every file recorded in hookd's
state directory), ``inspect`` reads one and says what install left there and what is wrong with it. Nothing
here writes or runs anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from hookd.agents import install_record, safe_write, settings_file
from hookd.agents.settings_file import SettingsError

AGENTS = ("claude-code", "qwen", "gemini", "codex", "opencode", "pi")


class Install(NamedTuple):
    agent: str
    path: str  # the settings file (for opencode, the plugin file)
    hooks: int  # the hooks (matcher groups, for opencode the plugin) install left there; 0: not installed
    problems: tuple[str, ...] = ()  # what keeps it from guarding as install meant, one line each


def locations(agent: str, cwd: str | None = None, state: str | None = None) -> list[str]:
    """The files an install of ``agent`` can be in: the user's, the project's (``cwd``), the recorded ones."""
    from hookd.agents.codex import install as codex
    from hookd.agents.gemini import install as gemini
    from hookd.agents.opencode import install as opencode

    here = cwd or os.getcwd()
    if agent == "claude-code":
        found = [settings_file.path_for("user"), *(os.path.join(here, settings_file.SCOPES[s]) for s in ("project", "local"))]
    elif agent in ("qwen", "gemini"):
        scopes = gemini.QWEN_SCOPES if agent == "qwen" else gemini.GEMINI_SCOPES
        found = [gemini.path_for(agent, "user"), os.path.join(here, scopes["project"])]
    elif agent == "codex":
        found = [codex.config_path("user"), codex.config_path("project", cwd=here)]
    elif agent == "pi":
        from hookd.agents.pi import install as pi

        found = [str(pi.extension_dir(scope, cwd=here) / pi.FILE_NAME) for scope in ("user", "project")]
    else:
        found = [str(opencode.plugin_dir("user") / opencode.FILE_NAME), str(opencode.plugin_dir("project", cwd=here) / opencode.FILE_NAME)]
    if state is not None:
        found += [r.path for r in install_record.records(state) if r.agent == agent and r.role == "settings"]
    return list(dict.fromkeys(os.path.abspath(p) for p in found))


def inspect(agent: str, path: str) -> Install:
    """What install left in ``path`` for ``agent``, and what is wrong with it."""
    if agent == "codex":
        return _codex(path)
    if agent == "opencode":
        return _opencode(path)
    if agent == "pi":
        return _pi(path)
    return _settings(agent, path)


def _settings(agent: str, path: str) -> Install:
    from hookd.agents.gemini import install as gemini
    from hookd.agents.gemini import protocol

    try:
        doc = settings_file.parse(safe_write.read(path), path)
    except (SettingsError, OSError) as exc:
        return Install(agent, path, 0, (str(exc),))
    ours = gemini.is_gemini_ours if agent == "gemini" else settings_file.is_ours
    hooks = doc.get("hooks", {})
    have = {event for event, groups in hooks.items() if any(ours(g) for g in groups)}
    if not have:
        return Install(agent, path, 0)
    wanted = {"claude-code": settings_file.EVENTS, "qwen": gemini.QWEN_INSTALLED, "gemini": protocol.INSTALLED_EVENTS}[agent]
    problems = []
    missing = [e for e in wanted if e not in have]
    if missing:
        # An earlier version installed only the events that had hooks; a guard on the others never runs.
        problems.append(f"events not sent to hookd: {', '.join(missing)} (install again to send every event)")
    count = settings_file.count(doc, ours)
    return Install(agent, path, count, tuple(problems))


def _codex(path: str) -> Install:
    from hookd.agents.codex import install as codex

    try:
        text = (safe_write.read(path) or b"").decode("utf-8")
        found = codex.find(text)
    except (OSError, UnicodeDecodeError, codex.InstallError) as exc:
        return Install("codex", path, 0, (str(exc),))
    return Install("codex", path, 0 if found is None else codex.hooks_in(text))


def _opencode(path: str) -> Install:
    from hookd.agents.opencode import install as opencode

    plugin = Path(path)
    if not plugin.is_file() or not opencode.is_ours(plugin):
        return Install("opencode", path, 0)
    text = plugin.read_text(encoding="utf-8")
    problems = []
    if 'from "hookd-client"' in text:
        problems.append("the plugin imports the npm package hookd-client, which does not exist: install again")
    elif 'from "./hookd-client.mjs"' in text and not (plugin.parent / opencode.CLIENT_NAME).is_file():
        problems.append(f"{opencode.CLIENT_NAME} is missing beside the plugin: install again")
    elif "tool.approval.pre" not in text:
        problems.append("the plugin does not decide tool calls on tool.approval.pre: install again")
    return Install("opencode", path, 1, tuple(problems))


def _pi(path: str) -> Install:
    from hookd.agents.pi import install as pi

    extension = Path(path)
    if not extension.is_file() or not pi.is_ours(extension):
        return Install("pi", path, 0)
    return Install("pi", path, 1, pi.problems(extension))
