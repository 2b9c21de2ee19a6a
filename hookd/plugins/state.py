"""What the manager knows of each plugin scope and directory."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from hookd_client.messages import Scope

from hookd.config import plugin_dirs as discovery
from hookd.plugins.hosthandle import HostHandle, Unloaded


@dataclass(slots=True, eq=False)
class DirState:
    directory: str
    fingerprint: discovery.Fingerprint = ()
    digests: dict[str, str] = field(default_factory=dict)  # original path -> sha256 of the bytes last judged
    trusted: bool = False
    host: HostHandle | None = None  # the host whose hooks are in force
    pending: Unloaded | None = None  # the runner of its placeholder hooks while it has no host
    failed: str = ""  # why the last load did not give it a host ("" when it did, or is loading)
    events: set[str] = field(default_factory=set)  # decision events it handles: the host's answer, else a static guess
    task: asyncio.Task[None] | None = None  # its load under way
    warned_untrusted: bool = False
    stage: str = ""  # "installing" (pip runs: see progress) or "starting" during a load
    progress: str = ""  # pip's latest line while it installs
    unfit_reported: tuple[str, ...] = ()

    @property
    def loading(self) -> bool:
        return self.task is not None and not self.task.done()


@dataclass(slots=True, eq=False)
class ScopeState:
    scope: Scope
    owner: str
    dirs: dict[str, DirState] = field(default_factory=dict)
    trust_seen: int = 0
    task: asyncio.Task[None] | None = None  # the scope's last (re)load, every directory's included
    first: asyncio.Task[None] | None = None  # its first load
    closed: bool = False  # forgotten (project disposed) or shutting down: register nothing more
    ready: bool = False  # its directories were read once: the poller may look at them

    @property
    def project(self) -> str | None:
        return self.owner if self.scope == "project" else None
