"""What hookd saw each hook do: per-hook results of a call (on decide events), a call's
trace (``decide`` with ``trace``), and the ``stats`` request. docs/observe.md."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .base import Decision, DecisionKind, HookRef, HookType, Reply, Request, RequestId

# Why a hook of a call did not run: the reasons of NotRun, plus ``match`` (its match filter did not
# match the payload), ``decided`` (an earlier hook's final answer ended the chain) and ``disabled``.
SkipReason = Literal[
    "match",
    "decided",
    "disabled",
    "untrusted",
    "invalid_file",
    "not_loaded",
    "plugin_failed",
    "worker_failed",
    "shed",
    "too_large",
    "disconnected",
    "deadline",
]


class HookRun(msgspec.Struct, omit_defaults=True):
    """One hook of a decide, as it went: its answer (``decision``/``reason``, both absent for an
    abstention), how long it took (``ms``), or how it failed (``error`` is ``timeout`` or ``error``,
    ``message`` says what happened), or why it did not run (``skipped``). ``shadow``: a shadow hook,
    whose answer was recorded and never applied."""

    hook: HookRef
    type: HookType = "decision"
    decision: DecisionKind | None = None
    reason: str | None = None
    ms: float | None = None
    error: str | None = None
    message: str | None = None
    skipped: SkipReason | None = None
    shadow: bool = False
    rule: str | None = None  # the rule its answer named (a built-in guard's "git.reset-hard")


class TraceEntry(msgspec.Struct, omit_defaults=True):
    """One hook of a traced decide: the payload it was given (after earlier hooks' rewrites),
    its whole answer, and excerpts of what it wrote (the first ``TRACE_EXCERPT`` bytes of each)."""

    hook: HookRef
    type: HookType = "decision"
    input: dict[str, Any] | None = None
    answer: Decision | None = None
    ms: float | None = None
    error: str | None = None
    message: str | None = None
    skipped: SkipReason | None = None
    why: str | None = None
    stdout: str | None = None
    stderr: str | None = None
    shadow: bool = False


class StatsRequest(Request, tag="stats"):
    """Counters and durations per hook, per point and per session. ``window``: the length, in
    seconds, of the recent window asked for (None: the daemon's setting; capped by it)."""

    id: RequestId
    window: Annotated[float, msgspec.Meta(gt=0)] | None = None


class Counts(msgspec.Struct, omit_defaults=True):
    """Counters and duration quantiles (milliseconds, None with no run) over one span of time."""

    calls: int = 0
    errors: int = 0
    timeouts: int = 0
    allows: int = 0
    denies: int = 0
    asks: int = 0
    skips: dict[str, int] = {}
    p50: float | None = None
    p95: float | None = None
    p99: float | None = None
    max: float | None = None
    rules: dict[str, int] = {}  # the answers that named a rule (a built-in guard's), counted by rule


class HookStats(msgspec.Struct, omit_defaults=True):
    """One hook's counts over the daemon's life (``life``) and the recent window (``recent``)."""

    hook: HookRef
    point: str
    type: HookType
    life: Counts
    recent: Counts
    shadow: bool = False
    last_error: str | None = None
    last_error_time: float | None = None


class GroupStats(msgspec.Struct, omit_defaults=True):
    """The decides of one point or one session; their durations are the whole chain's."""

    name: str
    life: Counts
    recent: Counts


class Stats(Reply, tag="stats"):
    """Answer to ``stats``. ``since``: when collection started (Unix seconds); ``window``: the recent
    window's length in seconds; ``enabled``: False when the daemon runs with stats off (then all is empty)."""

    id: int
    since: float
    window: float
    enabled: bool = True
    hooks: list[HookStats] = []
    points: list[GroupStats] = []
    sessions: list[GroupStats] = []
    agents: list[GroupStats] = []  # the decides of each agent, as its bridge named it (``payload.agent``)


TRACE_EXCERPT = 4096

__all__ = ["TRACE_EXCERPT", "Counts", "GroupStats", "HookRun", "HookStats", "SkipReason", "Stats", "StatsRequest", "TraceEntry"]
