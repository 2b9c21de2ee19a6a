"""The daemon's tunables, with their defaults. Set from `hookd serve` flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from hookd_client.framing import DEFAULT_MAX_FRAME
from hookd_client.paths import default_socket_path

from hookd.core.limits import EdgeLimits


@dataclass(slots=True)
class Settings:
    socket: str = field(default_factory=default_socket_path)
    max_frame: int = DEFAULT_MAX_FRAME
    hook_timeout: float = 30.0
    stdout_cap: int = 1 << 20
    stderr_cap: int = 64 * 1024
    max_hook_processes: int = 64
    max_inflight: int = 4096  # per connection; past it the daemon stops reading that connection
    max_sessions: int = 100_000
    max_hooks_per_session: int = 1_000
    load_user_config: bool = True
    # --- event stream
    history: int = 10_000  # events kept in memory for subscribe(since=...)
    history_bytes: int = 64 << 20  # ... and at most about this much of their requests' bytes
    subscriber_queue: int = 16_384  # per subscriber, events queued before it misses some (> history: a full replay fits)
    subscriber_queue_bytes: int = 8 << 20
    journal: bool = True
    journal_path: str | None = None  # None: $XDG_STATE_HOME/hookd/events.jsonl
    journal_max_bytes: int = 16 << 20  # rotate past this size
    journal_keep: int = 5  # rotated files kept
    # --- stats (docs/observe.md): per hook, point and session, over the daemon's life and a recent window
    stats: bool = True
    stats_window: float = 300.0  # seconds
    session_grace: float = 60.0  # seconds a session outlives its owner's connection
    # --- approvals (docs/approvals.md): how long a call offered to approvers waits, and what then
    approval_timeout: float = 120.0
    approval_default: Literal["allow", "deny"] = "deny"
    edge: EdgeLimits = field(default_factory=EdgeLimits)  # connection deadlines and byte bounds (docs/protocol.md, Limits)
