"""Sessions, projects, registered hooks, toggles, trust and the ``explain``/``list_hooks`` views."""

from __future__ import annotations

from typing import Any

import msgspec

from .base import HookSpec, HookType, NonEmpty, Reply, Request, RequestId, Scope


class AttachSession(Request, tag="attach_session"):
    id: RequestId
    session: NonEmpty
    project: str | None = None
    hooks: list[HookSpec] = []


class DisposeSession(Request, tag="dispose_session"):
    id: RequestId
    session: NonEmpty


class DisposeProject(Request, tag="dispose_project"):
    id: RequestId
    project: NonEmpty


class Register(Request, tag="register"):
    id: RequestId
    hook: HookSpec
    session: str | None = None
    project: str | None = None


class Unregister(Request, tag="unregister"):
    id: RequestId
    handle: NonEmpty


class ReloadUserHooks(Request, tag="reload_user_hooks"):
    id: RequestId
    project: str | None = None


class _HookByName(Request):
    # What enable_hook and disable_hook both carry: a hook's name, and the project it is seen from
    # (None: the global hooks). Not on the wire by itself.
    id: RequestId
    name: NonEmpty
    project: str | None = None


class EnableHook(_HookByName, tag="enable_hook"):
    pass


class DisableHook(_HookByName, tag="disable_hook"):
    pass


class Explain(Request, tag="explain"):
    id: RequestId
    point: str
    session: str | None = None
    project: str | None = None


class ListHooks(Request, tag="list_hooks"):
    """Every hook in force: the global ones, and ``project``'s (else every loaded project's and session's)."""

    id: RequestId
    project: str | None = None


class _HookFiles(Request):
    # What trust and untrust both carry: a project directory or one hook file. Not on the wire by itself.
    id: RequestId
    path: NonEmpty


class Trust(_HookFiles, tag="trust"):
    """Trust a project's hook files as they are now (``path``: a project directory or one hook file)."""


class Untrust(_HookFiles, tag="untrust"):
    pass


class Attached(Reply, tag="attached"):
    id: int
    session: str
    handles: list[str] = []


class Registered(Reply, tag="registered"):
    id: int
    handle: str


class Done(Reply, tag="done"):
    """Answer to requests that only act; ``count`` says how many hooks they touched."""

    id: int
    count: int = 0


class ChainEntry(msgspec.Struct, omit_defaults=True):
    name: str
    type: HookType
    scope: Scope
    priority: int
    source: str
    point: str
    enabled: bool = True
    trusted: bool = True
    shadow: bool = False  # runs beside the chain; its answer is recorded, never applied


class Chain(Reply, tag="chain"):
    """Answer to ``explain``: the hooks a call would run, in order."""

    id: int
    point: str
    decision_hooks: list[ChainEntry] = []
    observers: list[ChainEntry] = []


class HookInfo(msgspec.Struct, omit_defaults=True):
    """One hook in force, as `hookd hooks` shows it."""

    name: str
    point: str
    type: HookType
    scope: Scope
    owner: str  # "" (global), the project path, or the session id
    source: str
    priority: int
    enabled: bool  # in force now, after toggles
    default_enabled: bool  # what the file (or registration) says
    toggled: bool = False
    trusted: bool = True
    trust: str = ""  # why it is (not) trusted
    description: str = ""
    match: dict[str, str] = {}
    worker: str = ""  # persistent hooks: idle, running, backoff, "failed: <why>", stopped
    shadow: bool = False  # a shadow hook: its answer is recorded, never applied
    # A session's hook whose session has lost its owner (the connection that attached it closed): the
    # session waits out the daemon's grace period for its owner, then ends, in ``expires_in`` seconds.
    owner_gone: bool = False
    expires_in: float | None = None
    builtin: list[str] = []  # a built-in hook's guard packs (docs/guards.md)
    options: dict[str, Any] = {}  # and its policy


class FileProblem(msgspec.Struct, omit_defaults=True):
    """A hook file whose latest version was rejected; its previous version stays in force."""

    file: str
    problems: list[str]


class HookList(Reply, tag="hook_list"):
    id: int
    hooks: list[HookInfo] = []
    rejected: list[FileProblem] = []


class TrustedFile(msgspec.Struct, omit_defaults=True):
    file: str
    sha256: str = ""


class TrustResult(Reply, tag="trust_result"):
    """Answer to ``trust`` / ``untrust``: the hook files whose trust changed."""

    id: int
    files: list[TrustedFile] = []
