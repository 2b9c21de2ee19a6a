"""pi's installs: the extension file in its user and project extension folders."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.agents.pi import install
from hookd.agents.registry import Hook, Install

AGENT = "pi"


def locations(cwd: str) -> list[str]:
    return [str(install.extension_dir(scope, cwd=cwd) / install.FILE_NAME) for scope in ("user", "project")]


def inspect(path: str) -> Install:
    extension = Path(path)
    if not extension.is_file() or not install.is_ours(extension):
        return Install(AGENT, path, 0)
    return Install(AGENT, path, 1, install.problems(extension))


def hooks(path: str, env: Mapping[str, str]) -> list[Hook]:
    text = Path(path).read_text(encoding="utf-8", errors="replace") if Path(path).is_file() else ""
    return [Hook(AGENT, path, "extension", path, fail_closed=not install.fails_open(text))]


def hook_env(cwd: str, path: str) -> dict[str, str]:
    return {}


def blocked(answer: Mapping[str, Any]) -> bool:
    # The extension stops a tool call by answering pi's tool_call with {block: true, reason}.
    return answer.get("block") is True
