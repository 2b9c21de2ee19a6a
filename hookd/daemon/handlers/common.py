"""What every feature's handlers share: the error a request fails with, and argument checks."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from hookd_client import messages as m

from hookd.config import projects
from hookd.core import points
from hookd.core.refusal import Refusal
from hookd.runners.callback import Peer as CallbackPeer

if TYPE_CHECKING:
    from hookd.core.hooks import Hook

# A reply now; work that waits for one; or a future a warm decide resolves (hookd/engine/warm.py).
Result = m.Reply | Coroutine[Any, Any, m.Reply] | asyncio.Future[m.Reply]
Handler = Callable[["Peer", Any], Result]


class Peer(CallbackPeer, Protocol):
    """The connection a request came on, as a handler sees it (hookd/edge/connection.py): what the
    callback runner uses of it (its transport, its send), and what the features read."""

    body_size: int  # the request's size on the wire, in bytes
    holds: bool  # it holds a session, served hooks or a subscription: never closed for being silent


class Publishes(Protocol):
    def publish_internal(self, kind: str, data: dict[str, Any]) -> None:
        """An internal event, logged and published on the bus under ``hookd.``."""


class RunsInBackground(Protocol):
    def background(self, work: Coroutine[Any, Any, Any], what: str) -> asyncio.Task[Any]:
        """Run ``work`` as a task the daemon holds until it ends."""


class MakesHooks(Protocol):
    def command_hook(self, spec: m.HookSpec, scope: m.Scope, owner: str, source: str, trust_key: str = "", sha: str = "") -> Hook:
        """The hook a spec makes, with the runner its mode takes."""

    def hooks_removed(self, removed: list[Hook], reloaded: list[Hook] | None = None) -> None:
        """Stop the warm workers of removed (or changed) hooks."""


class RequestError(Refusal):
    """A request that cannot be served; becomes an Error reply with ``code``."""


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
