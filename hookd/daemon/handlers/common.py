"""What every feature's handlers share: the error a request fails with, and argument checks."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import Any

from hookd_client import messages as m

from hookd.config import projects
from hookd.core import points

# A reply now; work that waits for one; or a future a warm decide resolves (hookd/engine/warm.py).
Result = m.Reply | Coroutine[Any, Any, m.Reply] | asyncio.Future[m.Reply]
Handler = Callable[[Any, Any], Result]


class RequestError(Exception):
    """A request that cannot be served; becomes an Error reply with ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def project_arg(path: str | None) -> str | None:
    """The project's identity (see hookd/config/projects.py); BAD_REQUEST naming what is wrong with the path."""
    if path is None:
        return None
    try:
        return projects.canonical(path)
    except projects.BadPath as exc:
        raise RequestError(m.ErrorCode.BAD_REQUEST, str(exc)) from None


def path_arg(path: str, what: str) -> str:
    """A path a request names (a project or one of its files), checked but not resolved."""
    try:
        return os.path.normpath(projects.check(path, what))
    except projects.BadPath as exc:
        raise RequestError(m.ErrorCode.BAD_REQUEST, str(exc)) from None


def check_point(hook: str, point: str, hook_type: str) -> None:
    """A hook may be registered on ``point``; else a RequestError naming the hook."""
    try:
        points.check_hook(point, hook_type)
    except points.UnknownPoint as exc:
        raise RequestError(m.ErrorCode.UNKNOWN_POINT, f"hook {hook!r}: {exc}") from None
    except points.WrongKind as exc:
        raise RequestError(m.ErrorCode.WRONG_KIND, f"hook {hook!r}: {exc}") from None


def point_arg(name: str) -> points.Point:
    try:
        return points.lookup(name)
    except points.UnknownPoint as exc:
        raise RequestError(m.ErrorCode.UNKNOWN_POINT, str(exc)) from None
