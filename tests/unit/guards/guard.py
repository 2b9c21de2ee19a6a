"""What the guard tests share: a call through the packs in a project at /home/dev/proj."""

from __future__ import annotations

from typing import Any

from hookd.guards.check import check
from hookd.guards.model import PACKS, Context, Finding
from hookd.guards.policy import Policy

HOME = "/home/dev"
PROJECT = "/home/dev/proj"


def shell(
    command: str, *, cwd: str | None = PROJECT, project: str | None = PROJECT, policy: Policy | None = None, packs: tuple[str, ...] = PACKS
) -> Finding | None:
    return check(packs, "execute_command", {"command": command}, Context(cwd, project, HOME), policy or Policy())


def tool(name: str, args: dict[str, Any], *, policy: Policy | None = None) -> Finding | None:
    return check(PACKS, name, args, Context(PROJECT, PROJECT, HOME), policy or Policy())


def rule(command: str, **kw: Any) -> str | None:
    found = shell(command, **kw)
    return found.rule if found is not None else None
