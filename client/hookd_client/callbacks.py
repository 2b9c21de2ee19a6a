"""Hooks served by the client's own code, and the record that restores them.

Sans-IO, shared by both clients: turning a Python callable into a callback
hook on the wire, running one for an ``invoke`` frame, and :class:`Book`, the
client's ordered record of the sessions it attached and the hooks it added to
them, which it replays (``attach_hooks`` with ``fresh``) on a new connection
before sending anything else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import msgspec

from .answers import describe
from .errors import HookdError
from .messages import (
    Attached,
    AttachHooks,
    AttachSession,
    CallbackEntry,
    CallbackSpec,
    CommandEntry,
    Decision,
    Error,
    HookSpec,
    HookType,
    Invoke,
    InvokeResult,
    OnError,
    Reply,
    Request,
    SessionEntry,
)
from .messages.base import decision_from

Handler = Callable[..., Any]


class InvokeContext(msgspec.Struct, frozen=True):
    """What a handler that takes a second argument receives besides the payload."""

    point: str
    session: str | None
    project: str | None
    hook: str
    kind: HookType
    replay: bool = False  # a journaled call run again (`hookd replay`): avoid side effects


class Callback(msgspec.Struct, frozen=True):
    """A handler as a hook: where it hangs and how it is called."""

    handler: Handler
    point: str
    type: HookType = "decision"
    priority: int = 0
    name: str | None = None
    timeout: float | None = None
    on_error: OnError = "continue"


def callback(
    point: str,
    handler: Handler,
    *,
    type: HookType = "decision",
    priority: int = 0,
    name: str | None = None,
    timeout: float | None = None,
    on_error: OnError = "continue",
) -> Callback:
    """A callable as an ``attach_session`` hook: ``callback("tool.approval.pre", guard, priority=10)``."""
    return Callback(handler, point, type, priority, name, timeout, on_error)


def _takes_context(fn: Handler) -> bool:
    import inspect  # only when a handler is registered: keeps `import hookd_client` light

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


class Served(msgspec.Struct, frozen=True):
    """A registered handler, by its number on the wire."""

    cb: int
    handler: Handler
    takes_context: bool
    is_async: bool


def as_decision(value: Any) -> Decision | None:
    """A handler's answer as a Decision: None, a Decision, or a mapping in the seed's shape."""
    if value is None or isinstance(value, Decision):
        return value
    if isinstance(value, Mapping):
        return decision_from(value)
    raise TypeError(f"a decision handler must return a Decision, a mapping or None, not {type(value).__name__}")


def raised(inv: Invoke, exc: BaseException) -> InvokeResult:
    """The error answer for a handler that raised: the daemon records it as the hook's error."""
    return InvokeResult(inv.call, None, describe(exc))


def label(inv: Invoke, served: Served | None) -> str:
    """How an error answer names the handler: the hook's name, and the function's when it differs."""
    try:
        fn = str(_handler_name(served.handler)) if served is not None else None
    except Exception:  # a callable whose attributes raise still gets its answer sent
        fn = None
    return inv.hook if not fn or fn == inv.hook else f"{inv.hook} ({fn})"


def run_sync(served: Served, inv: Invoke) -> InvokeResult:
    """Call a plain handler for one invoke; whatever it raises becomes the error answer.

    SystemExit too: it must not end the thread that serves handlers.
    """
    try:
        args = (inv.payload, _context(inv)) if served.takes_context else (inv.payload,)
        value = served.handler(*args)
        return InvokeResult(inv.call, as_decision(value) if inv.kind == "decision" else None)
    except BaseException as exc:
        return raised(inv, exc)


async def run_async(served: Served, inv: Invoke) -> InvokeResult:
    """Await a coroutine handler (or call a plain one) for one invoke. Cancellation goes through."""
    try:
        args = (inv.payload, _context(inv)) if served.takes_context else (inv.payload,)
        value = served.handler(*args)
        if hasattr(value, "__await__"):
            value = await value
        return InvokeResult(inv.call, as_decision(value) if inv.kind == "decision" else None)
    except (Exception, SystemExit) as exc:
        return raised(inv, exc)


def unknown(inv: Invoke) -> InvokeResult:
    return InvokeResult(inv.call, None, f"this client serves no handler number {inv.cb} (it was unsubscribed)")


def _context(inv: Invoke) -> InvokeContext:
    return InvokeContext(inv.point, inv.session, inv.project, inv.hook, inv.kind, inv.replay)


def _handler_name(fn: Handler) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


class Entry(msgspec.Struct):
    """One hook the client added to a session. ``handle`` is what the caller got; ``current`` the daemon's now
    ("" once the hook is gone: its session could not be restored on a new daemon)."""

    wire: SessionEntry
    handle: str = ""
    current: str = ""


class SessionRecord(msgspec.Struct):
    project: str | None
    entries: list[Entry] = []


class Book:
    """The sessions this client attached and the handlers it serves."""

    def __init__(self) -> None:
        self.sessions: dict[str, SessionRecord] = {}
        self.served: dict[int, Served] = {}
        self._handles: dict[str, tuple[str, Entry]] = {}
        # Hooks registered outside a session live as long as the daemon that took them:
        # caller's handle -> (that daemon's pid, its handle).
        self._registered: dict[str, tuple[int, str]] = {}
        self._aliases = itertools.count(2)
        self._cbs = itertools.count(1)

    # ------------------------------------------------------------ building

    def entry_for(self, hook: Any) -> SessionEntry:
        """One item of an ``attach_session`` list on the wire; registers handlers it contains."""
        if isinstance(hook, Callback):
            return self._callback_entry(hook)
        if isinstance(hook, Mapping) and "handler" in hook:
            spec = dict(hook)
            fn = spec.pop("handler")
            spec.pop("enabled", None)
            spec.pop("description", None)
            return self._callback_entry(Callback(fn, **spec))
        if callable(hook) and not isinstance(hook, HookSpec | Mapping):
            raise TypeError(
                "a handler in attach_session needs a point: pass hookd_client.callback(point, handler) "
                "or a mapping with 'point', 'type' and 'handler'"
            )
        if isinstance(hook, HookSpec):
            return CommandEntry(hook)
        return CommandEntry(msgspec.convert(dict(hook), HookSpec))

    def _callback_entry(self, cb: Callback) -> CallbackEntry:
        if not callable(cb.handler):
            raise TypeError(f"handler must be callable, got {type(cb.handler).__name__}")
        import inspect

        number = next(self._cbs)
        fn = cb.handler
        is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))  # noqa: B004
        self.served[number] = Served(number, fn, _takes_context(fn), is_async)
        spec = CallbackSpec(number, cb.name or _handler_name(fn), cb.point, cb.type, cb.priority, cb.timeout, cb.on_error)
        return CallbackEntry(spec)

    def attach_request(self, rid: int, session: str, project: str | None, entries: list[SessionEntry]) -> Request:
        """The request for a new attach: the core's attach_session when no handler is in it."""
        if all(isinstance(e, CommandEntry) for e in entries):
            return AttachSession(rid, session, project, [e.spec for e in entries])  # type: ignore[union-attr]
        return AttachHooks(rid, session, project, entries)

    def restore_requests(self, ids: Iterable[int]) -> list[AttachHooks]:
        """What re-creates every recorded session, in order, on a fresh connection."""
        return [
            AttachHooks(rid, sid, rec.project, [e.wire for e in rec.entries], fresh=True)
            for rid, (sid, rec) in zip(ids, self.sessions.items(), strict=False)
        ]

    @property
    def serving(self) -> bool:
        return bool(self.served)

    # ----------------------------------------------------------- recording

    def on_attached(self, session: str, project: str | None, entries: list[SessionEntry]) -> Callable[[Reply], list[str]]:
        """A reply converter that records the attach once the daemon accepted it."""

        def convert(reply: Reply) -> list[str]:
            if isinstance(reply, Error):
                self.drop_unrecorded(entries)
                raise HookdError(reply.code, reply.message)
            if not isinstance(reply, Attached):
                raise HookdError("bad_reply", f"expected an Attached reply, got {type(reply).__name__}")
            rec = self.sessions.get(session)
            if rec is None:
                rec = self.sessions[session] = SessionRecord(project)
            elif project is not None:
                rec.project = project
            handles = []
            for wire, handle in zip(entries, reply.handles, strict=False):
                entry = Entry(wire, self._unique(handle), handle)
                rec.entries.append(entry)
                self._handles[entry.handle] = (session, entry)
                handles.append(entry.handle)
            return handles

        return convert

    def on_registered(self, daemon_pid: int, handle: str) -> str:
        """Record a hook registered outside a session; returns the handle the caller gets."""
        mine = self._unique(handle)
        self._registered[mine] = (daemon_pid, handle)
        return mine

    def _unique(self, handle: str) -> str:
        # A daemon started after a restart may hand out a handle the caller still holds from the
        # one before: the caller then gets an alias, so that neither handle names the other's hook.
        if handle not in self._handles and handle not in self._registered:
            return handle
        while True:
            alias = f"{handle}~{next(self._aliases)}"
            if alias not in self._handles and alias not in self._registered:
                return alias

    def drop_unrecorded(self, entries: list[SessionEntry]) -> None:
        for e in entries:
            if isinstance(e, CallbackEntry):
                self.served.pop(e.spec.cb, None)

    def restored(self, request: AttachHooks, reply: Reply) -> HookdError | None:
        """Map a restored session's new handles onto the recorded ones."""
        rec = self.sessions.get(request.session)
        handles = list(reply.handles) if isinstance(reply, Attached) else []
        if rec is not None:
            # An entry the new daemon gave no handle for is gone: its old handle may name another hook now.
            for i, entry in enumerate(rec.entries):
                entry.current = handles[i] if i < len(handles) else ""
        if isinstance(reply, Error):
            return HookdError(reply.code, f"restoring session {request.session!r}: {reply.message}")
        if not isinstance(reply, Attached):
            return HookdError("bad_reply", f"restoring session {request.session!r}: got {type(reply).__name__}")
        return None

    def current(self, handle: str) -> str:
        known = self._handles.get(handle)
        return known[1].current if known is not None else handle

    def unregister_target(self, handle: str, daemon_pid: int | None) -> str:
        """The daemon's handle for the caller's ``handle``, now (call :meth:`forget` once it was sent).

        Raises a ``stale_handle`` HookdError, and forgets the handle, when the hook
        is known to be gone with an earlier daemon: that daemon's handle may name
        another hook on this one.
        """
        known = self._handles.get(handle)
        if known is not None:
            session, entry = known
            if not entry.current:
                self.forget(handle)
                raise HookdError(
                    "stale_handle",
                    f"hook {handle} is gone: its session {session!r} could not be restored on the restarted "
                    "daemon (see the client's restore_errors); nothing was removed",
                )
            return entry.current
        registered = self._registered.get(handle)
        if registered is not None:
            pid, theirs = registered
            if daemon_pid is not None and pid != daemon_pid:
                self.forget(handle)
                raise HookdError(
                    "stale_handle",
                    f"hook {handle} was registered with the hookd daemon that ran as pid {pid}, which has "
                    f"stopped since; the hook went with it and nothing was removed (register it again)",
                )
            return theirs
        return handle

    def forget(self, handle: str) -> None:
        """The caller's ``handle`` was unregistered (or is gone): stop mapping and serving it."""
        self._registered.pop(handle, None)
        self.forget_handle(handle)

    def forget_handle(self, handle: str) -> None:
        known = self._handles.pop(handle, None)
        if known is None:
            return
        session, entry = known
        rec = self.sessions.get(session)
        if rec is not None:
            rec.entries = [e for e in rec.entries if e is not entry]
        if isinstance(entry.wire, CallbackEntry):
            self.served.pop(entry.wire.spec.cb, None)

    def forget_session(self, session: str) -> None:
        rec = self.sessions.pop(session, None)
        if rec is None:
            return
        for entry in rec.entries:
            self._handles.pop(entry.handle, None)
            if isinstance(entry.wire, CallbackEntry):
                self.served.pop(entry.wire.spec.cb, None)
