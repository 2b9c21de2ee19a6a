"""The request methods, written once for both clients.

Each method builds a request and names how to turn the reply into a result.
``Client._call`` performs the round trip and returns the result;
``AsyncClient._call`` returns a coroutine of it. So ``client.decide(...)`` and
``await aclient.decide(...)`` share one definition.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from .errors import HookdError
from .messages import (
    Accepted,
    Attached,
    AttachSession,
    Chain,
    Decide,
    DisableHook,
    DisposeProject,
    DisposeSession,
    Done,
    Emit,
    EnableHook,
    Error,
    Explain,
    HookList,
    HookSpec,
    ListHooks,
    Outcome,
    Register,
    Registered,
    ReloadUserHooks,
    Reply,
    Request,
    Status,
    StatusRequest,
    Trust,
    TrustResult,
    Unregister,
    Untrust,
)


def _abs(project: str | None) -> str | None:
    return None if project is None else os.path.abspath(project)


def as_spec(hook: HookSpec | Mapping[str, Any]) -> HookSpec:
    """Accept a HookSpec or a plain mapping in the YAML format."""
    if isinstance(hook, HookSpec):
        return hook
    return msgspec.convert(dict(hook), HookSpec)


def expect(kind: type[Reply]) -> Callable[[Reply], Any]:
    def check(reply: Reply) -> Any:
        if isinstance(reply, Error):
            raise HookdError(reply.code, reply.message)
        if not isinstance(reply, kind):
            raise HookdError("bad_reply", f"expected a {kind.__name__} reply, got {type(reply).__name__}")
        return reply

    return check


def _field(kind: type[Reply], name: str) -> Callable[[Reply], Any]:
    check = expect(kind)
    return lambda reply: getattr(check(reply), name)


class Api:
    """Mixin: every registry call of seed 000, over the socket."""

    _ids: Iterable[int]

    def _next_id(self) -> int:
        return next(self._ids)  # type: ignore[call-overload]

    def _call(self, request: Request, convert: Callable[[Reply], Any]) -> Any:
        raise NotImplementedError

    def _init_ids(self) -> None:
        self._ids = itertools.count(1)

    def emit(
        self,
        point: str,
        payload: Mapping[str, Any] | None = None,
        *,
        session: str | None = None,
        project: str | None = None,
        wait: bool = False,
    ) -> Any:
        """Fire observer hooks. Returns once accepted (or, with ``wait``, once observers ran)."""
        req = Emit(self._next_id(), point, dict(payload or {}), session, _abs(project), wait)
        return self._call(req, expect(Accepted))

    def decide(
        self,
        point: str,
        payload: Mapping[str, Any] | None = None,
        *,
        session: str | None = None,
        project: str | None = None,
    ) -> Any:
        """Run the decision chain; returns an :class:`Outcome`."""
        req = Decide(self._next_id(), point, dict(payload or {}), session, _abs(project))
        return self._call(req, expect(Outcome))

    def attach_session(
        self,
        session: str,
        hooks: Iterable[HookSpec | Mapping[str, Any]] = (),
        *,
        project: str | None = None,
    ) -> Any:
        """Attach a session (and its command hooks). Returns the hooks' handles."""
        specs = [as_spec(h) for h in hooks]
        req = AttachSession(self._next_id(), session, _abs(project), specs)
        return self._call(req, _field(Attached, "handles"))

    def dispose_session(self, session: str) -> Any:
        return self._call(DisposeSession(self._next_id(), session), _field(Done, "count"))

    def dispose_project(self, project: str) -> Any:
        req = DisposeProject(self._next_id(), os.path.abspath(project))
        return self._call(req, _field(Done, "count"))

    def register(
        self,
        hook: HookSpec | Mapping[str, Any],
        *,
        session: str | None = None,
        project: str | None = None,
    ) -> Any:
        """Register one command hook; returns its handle for :meth:`unregister`."""
        req = Register(self._next_id(), as_spec(hook), session, _abs(project))
        return self._call(req, _field(Registered, "handle"))

    def unregister(self, handle: str) -> Any:
        return self._call(Unregister(self._next_id(), handle), _field(Done, "count"))

    def reload_user_hooks(self, project: str | None = None) -> Any:
        req = ReloadUserHooks(self._next_id(), _abs(project))
        return self._call(req, _field(Done, "count"))

    def enable_hook(self, name: str, project: str | None = None) -> Any:
        req = EnableHook(self._next_id(), name, _abs(project))
        return self._call(req, _field(Done, "count"))

    def disable_hook(self, name: str, project: str | None = None) -> Any:
        req = DisableHook(self._next_id(), name, _abs(project))
        return self._call(req, _field(Done, "count"))

    def explain(self, point: str, *, session: str | None = None, project: str | None = None) -> Any:
        """The ordered chain a call on ``point`` would run, as a :class:`Chain`."""
        req = Explain(self._next_id(), point, session, _abs(project))
        return self._call(req, expect(Chain))

    def status(self) -> Any:
        return self._call(StatusRequest(self._next_id()), expect(Status))

    # --- user hook configuration (issue 3)

    def list_hooks(self, project: str | None = None) -> Any:
        """Every hook in force (global, and ``project``'s; without it every loaded project's and session's)."""
        req = ListHooks(self._next_id(), _abs(project))
        return self._call(req, expect(HookList))

    def trust(self, path: str) -> Any:
        """Trust a project's hook files (or one file) as they are now; returns the files trusted."""
        req = Trust(self._next_id(), os.path.abspath(path))
        return self._call(req, _field(TrustResult, "files"))

    def untrust(self, path: str) -> Any:
        req = Untrust(self._next_id(), os.path.abspath(path))
        return self._call(req, _field(TrustResult, "files"))
