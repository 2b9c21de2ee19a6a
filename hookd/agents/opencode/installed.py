"""opencode's installs: the plugin file in its user and project plugin folders."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.agents.opencode import install
from hookd.agents.registry import Hook, Install

AGENT = "opencode"


def locations(cwd: str) -> list[str]:
    return [str(install.plugin_dir("user") / install.FILE_NAME), str(install.plugin_dir("project", cwd=cwd) / install.FILE_NAME)]


def inspect(path: str) -> Install:
    plugin = Path(path)
    if not plugin.is_file() or not install.is_ours(plugin):
        return Install(AGENT, path, 0)
    text = plugin.read_text(encoding="utf-8")
    problems = []
    if 'from "hookd-client"' in text:
        problems.append("the plugin imports the npm package hookd-client, which does not exist: install again")
    elif 'from "./hookd-client.mjs"' in text and not (plugin.parent / install.CLIENT_NAME).is_file():
        problems.append(f"{install.CLIENT_NAME} is missing beside the plugin: install again")
    elif "tool.approval.pre" not in text:
        problems.append("the plugin does not decide tool calls on tool.approval.pre: install again")
    return Install(AGENT, path, 1, tuple(problems))


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    text = Path(path).read_text(encoding="utf-8", errors="replace") if Path(path).is_file() else ""
    return [Hook(AGENT, path, "plugin", path, fail_closed='"failClosed":true' in text.replace(" ", ""))]


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    # The plugin stops a tool call by throwing; the canary's driver reports what it threw.
    return isinstance(answer.get("thrown"), str)
