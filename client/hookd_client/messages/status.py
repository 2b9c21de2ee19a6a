"""``status``: the daemon, its workers, journal, plugin directories and team links."""

from __future__ import annotations

from typing import Literal

import msgspec

from .base import Reply, Request, RequestId, Scope


class StatusRequest(Request, tag="status"):
    id: RequestId


class WorkerInfo(msgspec.Struct, omit_defaults=True):
    """One persistent worker as ``status`` shows it. ``state``: idle, running, backoff, failed, stopped."""

    name: str
    state: str
    pid: int = 0
    restarts: int = 0
    failures: int = 0
    outstanding: int = 0
    queued: int = 0
    served: int = 0
    error: str = ""


class JournalInfo(msgspec.Struct, omit_defaults=True):
    """The journal as ``status`` shows it: events written, and events lost (never silently)."""

    enabled: bool
    path: str = ""
    written: int = 0  # events written by this daemon
    lost: int = 0  # events this daemon could not write (disk full, I/O error, backlog over its bound)
    failing: bool = False  # the last write failed; events are being lost now
    last_written: int = 0  # seq of the newest event on disk


PluginState = Literal["loading", "installing", "starting", "loaded", "failed", "untrusted", "empty"]


class PluginInfo(msgspec.Struct, omit_defaults=True):
    """One plugin directory the daemon knows, as ``status`` shows it."""

    directory: str
    scope: Scope
    state: PluginState
    owner: str = ""  # the project path, "" for the user's own directories
    pid: int = 0  # its host process, when loaded
    events: list[str] = []  # the decision events its guards handle
    progress: str = ""  # installing: pip's latest line
    error: str = ""  # failed (or a reload that failed while an older host still serves): why


class ExportInfo(msgspec.Struct, omit_defaults=True):
    """The export of the events to the team's stream. ``state``: connecting, exporting, failing."""

    state: str
    stream: str
    identity: str = ""  # the daemon's name in the message ids (<identity>:<seq>)
    acked: int = 0  # the newest seq the server acknowledged
    lag: int = 0  # events published on the bus and not acknowledged yet
    published: int = 0  # since the daemon started
    missed: int = 0  # rotated out of the journal before they were exported
    error: str = ""


class GuardsInfo(msgspec.Struct, omit_defaults=True):
    """The organisation's guards in force. ``revision``: the newest bucket revision taken into account."""

    bucket: str
    revision: int = 0
    hooks: int = 0
    keys: dict[str, int] = {}  # key -> the revision of it in force
    state: str = ""  # connecting, watching, offline, failing, record only
    rejected: dict[str, str] = {}  # key -> why its latest value was refused (its previous one stays)
    error: str = ""


class TeamInfo(msgspec.Struct, omit_defaults=True):
    servers: list[str] = []
    error: str = ""  # the team settings were refused
    export: ExportInfo | None = None
    guards: GuardsInfo | None = None


class Status(Reply, tag="status"):
    id: int
    version: str
    pid: int
    socket: str
    uptime: float
    connections: int
    sessions: int
    hooks: int
    calls: int
    emits: int = 0
    decides: int = 0
    hook_errors: int = 0
    workers: list[WorkerInfo] = []  # persistent hook workers
    subscribers: int = 0  # event-stream subscriptions open now
    events: int = 0  # the newest event's seq (events published, counting from the journal's past)
    journal: JournalInfo | None = None
    plugins: list[PluginInfo] = []
    team: TeamInfo | None = None  # export and organisation guards (docs/team.md); None: no team settings
