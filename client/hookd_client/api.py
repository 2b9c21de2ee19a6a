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

from .callbacks import Book, Callback, Handler
from .errors import unexpected
from .messages import (
    Accepted,
    AttachHooks,
    Catalog,
    CatalogRequest,
    Chain,
    Decide,
    DisableHook,
    DisposeProject,
    DisposeSession,
    Done,
    Emit,
    EnableHook,
    Explain,
    HookList,
    HookSpec,
    HookType,
    ListHooks,
    OnError,
    Outcome,
    Register,
    Registered,
    ReloadUserHooks,
    Reply,
    Request,
    Stats,
    StatsRequest,
    Status,
    StatusRequest,
    Subscribe,
    Trust,
    TrustResult,
    Unregister,
    Untrust,
)
from .stream import Since, subscribe_request


def _abs(project: str | None) -> str | None:
    return None if project is None else os.path.abspath(project)


def as_spec(hook: HookSpec | Mapping[str, Any]) -> HookSpec:
    """Accept a HookSpec or a plain mapping in the YAML format."""
    if isinstance(hook, HookSpec):
        return hook
    return msgspec.convert(dict(hook), HookSpec)


def expect(kind: type[Reply]) -> Callable[[Reply], Any]:
    def check(reply: Reply) -> Any:
        if isinstance(reply, kind):
            return reply
        raise unexpected(reply, kind)

    return check


# The checks of the calls made before and after every tool, made once.
_ACCEPTED = expect(Accepted)
_OUTCOME = expect(Outcome)


def build(request: Request | Callable[[], Request]) -> Request:
    """A request, or the one a factory builds now (once connected, after a restore)."""
    return request() if callable(request) else request


def _field(kind: type[Reply], name: str) -> Callable[[Reply], Any]:
    check = expect(kind)
    return lambda reply: getattr(check(reply), name)


class HookHandle:
    """What registering a handler returns: call it (or :meth:`unsubscribe`) to remove the hook.

    On the AsyncClient, ``await sub.unsubscribe()``. ``handle`` stays valid
    across reconnects: the client maps it to the daemon's current handle.
    """

    __slots__ = ("_api", "handle")

    def __init__(self, api: Api, handle: str) -> None:
        self._api = api
        self.handle = handle

    def unsubscribe(self) -> Any:
        return self._api.unregister(self.handle)

    __call__ = unsubscribe

    def __repr__(self) -> str:
        return f"HookHandle({self.handle!r})"


class Api:
    """Mixin: every registry call of seed 000, over the socket."""

    _ids: Iterable[int]
    _book: Book

    def _serve(self) -> None:
        """Called before a request that adds handlers: be ready to answer invokes."""

    def _next_id(self) -> int:
        return next(self._ids)  # type: ignore[call-overload]

    def _call(self, request: Request | Callable[[], Request], convert: Callable[[Reply], Any]) -> Any:
        """Send ``request`` (or what ``request()`` builds once connected) and convert its reply."""
        raise NotImplementedError

    def _init_ids(self) -> None:
        self._ids = itertools.count(1)
        self._book = Book()

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
        # Written out, as decide is: emit and decide are made around every tool. Building both
        # requests through one helper (the next id, the payload copied, the project made absolute)
        # cost the client 7% more CPU instructions a call: callgrind, 500 emit+decide round trips
        # against a daemon, 46,301 instructions a pair against 43,232 written out.
        where = project if project is None else _abs(project)
        req = Emit(next(self._ids), point, dict(payload) if payload else {}, session, where, wait)  # type: ignore[call-overload]
        return self._call(req, _ACCEPTED)

    def decide(
        self,
        point: str,
        payload: Mapping[str, Any] | None = None,
        *,
        session: str | None = None,
        project: str | None = None,
        trace: bool = False,
        timeout: float | None = None,
    ) -> Any:
        """Run the decision chain; returns an :class:`Outcome`. With ``trace``, its ``trace`` lists
        each hook of the call: its input, its answer, excerpts of its output, its time, or why it did not run.
        ``timeout``: the seconds you will wait for the outcome; every wait of the call (hook timeouts, an
        approval) ends before it, so a fail-closed guard's deny reaches you in time."""
        where = project if project is None else _abs(project)
        req = Decide(next(self._ids), point, dict(payload) if payload else {}, session, where, trace, timeout)  # type: ignore[call-overload]
        return self._call(req, _OUTCOME)

    def attach_session(
        self,
        session: str,
        hooks: Iterable[HookSpec | Mapping[str, Any]] = (),
        *,
        project: str | None = None,
    ) -> Any:
        """Attach a session and its hooks, in order. Returns the hooks' handles.

        ``hooks`` may mix command-hook specs (HookSpec or YAML-shaped mappings)
        and handlers (:func:`hookd_client.callback`, or a mapping with
        ``handler`` in place of ``command``). The session is owned by this
        client and restored by it after a reconnect.
        """
        book = self._book
        entries = []
        try:
            for h in hooks:
                entries.append(book.entry_for(h))
        except BaseException:
            book.drop_unrecorded(entries)
            raise
        project = _abs(project)
        req = book.attach_request(self._next_id(), session, project, entries)
        if isinstance(req, AttachHooks):
            self._serve()
        return self._call(req, book.on_attached(session, project, entries))

    def dispose_session(self, session: str) -> Any:
        self._book.forget_session(session)
        return self._call(DisposeSession(self._next_id(), session), _field(Done, "count"))

    def dispose_project(self, project: str) -> Any:
        req = DisposeProject(self._next_id(), os.path.abspath(project))
        return self._call(req, _field(Done, "count"))

    def register(
        self,
        hook: HookSpec | Mapping[str, Any] | str,
        handler: Handler | None = None,
        *,
        session: str | None = None,
        project: str | None = None,
        priority: int = 0,
        name: str | None = None,
        timeout: float | None = None,
        on_error: OnError = "continue",
    ) -> Any:
        """Register one command hook (returns its handle), or, as ``register(point, handler, session=...)``,
        a Python observer handler served by this client (returns a :class:`HookHandle`)."""
        if handler is not None or isinstance(hook, str):
            return self._register_handler("observer", hook, handler, session, project, priority, name, timeout, on_error)
        spec = as_spec(hook)
        if session is not None:
            project = _abs(project)
            entries = [self._book.entry_for(spec)]
            req = self._book.attach_request(self._next_id(), session, project, entries)
            recorded = self._book.on_attached(session, project, entries)
            return self._call(req, lambda reply: recorded(reply)[0])
        req = Register(self._next_id(), spec, session, _abs(project))
        check = expect(Registered)
        return self._call(req, lambda reply: self._book.on_registered(self._daemon_pid(), check(reply).handle))

    def register_decision(
        self,
        point: str,
        handler: Handler,
        *,
        session: str,
        project: str | None = None,
        priority: int = 0,
        name: str | None = None,
        timeout: float | None = None,
        on_error: OnError = "continue",
    ) -> Any:
        """Register a Python decision handler on a session; returns a :class:`HookHandle`.

        The handler gets the payload (and, if it takes a second argument, an
        InvokeContext) and returns a Decision, a mapping like
        ``{"decision": "deny", "reason": ...}``, or None to abstain.
        """
        return self._register_handler("decision", point, handler, session, project, priority, name, timeout, on_error)

    def _register_handler(
        self,
        kind: HookType,
        point: Any,
        handler: Handler | None,
        session: str | None,
        project: str | None,
        priority: int,
        name: str | None,
        timeout: float | None,
        on_error: OnError,
    ) -> Any:
        if not isinstance(point, str) or handler is None or not callable(handler):
            raise TypeError("register a handler as register(point, handler, session=...)")
        if session is None:
            raise TypeError("handler hooks are session hooks: pass session=...")
        project = _abs(project)
        entries = [self._book.entry_for(Callback(handler, point, kind, priority, name, timeout, on_error))]
        req = AttachHooks(self._next_id(), session, project, entries)
        recorded = self._book.on_attached(session, project, entries)
        self._serve()
        return self._call(req, lambda reply: HookHandle(self, recorded(reply)[0]))

    def unregister(self, handle: str) -> Any:
        """Remove a hook by the handle this client returned for it, whatever daemon serves it now.

        Built once connected (and restored): after a daemon restart the handle maps to
        the restored hook's new handle, or the call fails with ``stale_handle``.
        """
        book = self._book
        count = _field(Done, "count")

        def sent(reply: Reply) -> Any:
            book.forget(handle)  # removed, or not there to remove: either way no longer this client's
            return count(reply)

        return self._call(lambda: Unregister(self._next_id(), book.unregister_target(handle, self._daemon_pid())), sent)

    def _daemon_pid(self) -> int | None:
        welcome = getattr(self, "welcome", None)
        return welcome.pid if welcome is not None else None

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

    def stats(self, window: float | None = None) -> Any:
        """Per hook, per point and per session counts and durations, over the daemon's life and the
        last ``window`` seconds (None: the daemon's window), as a :class:`Stats`."""
        return self._call(StatsRequest(self._next_id(), window), expect(Stats))

    def catalog(self) -> Any:
        """Every hook point and internal event the daemon knows, with payload types, as a :class:`Catalog`."""
        return self._call(CatalogRequest(self._next_id()), expect(Catalog))

    def subscribe(
        self,
        points: Iterable[str] = (),
        *,
        sessions: Iterable[str] = (),
        projects: Iterable[str] = (),
        since: Since = None,
        follow: bool = True,
        queue: int | None = None,
        queue_bytes: int | None = None,
        timeout: float | None = None,
    ) -> Any:
        """The daemon's events, on a connection of their own: an iterator on ``Client``
        (``for ev in ...``), an async iterator on ``AsyncClient`` (``async for ev in ...``).

        ``points`` are globs (``tool.*``); ``since`` is a seq (int) or a duration
        (``"10m"``, a timedelta) to replay from memory first; ``follow=False`` stops
        after that replay. ``timeout`` bounds each wait for an event (``Client`` only).
        """
        return self._stream(subscribe_request(points, sessions, projects, since, follow, queue, queue_bytes), timeout)

    def _stream(self, request: Subscribe, timeout: float | None) -> Any:
        raise NotImplementedError

    # --- user hook configuration

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
