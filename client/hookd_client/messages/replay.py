"""Replay: journaled decide calls run again against the hooks in force now, then and now side by side."""

from __future__ import annotations

from typing import Annotated

import msgspec

from .base import DecisionKind, HookError, HookRef, NotRun, Reply, Request, RequestId
from .stream import PointGlob

ReplayLimit = Annotated[int, msgspec.Meta(ge=1, le=10_000)]


class Replay(Request, tag="replay"):
    """Run journaled decide calls again. ``first``..``last`` bound the seqs (one seq: both the same;
    either may be omitted), ``since`` the time (Unix seconds); ``points`` (globs) and ``sessions``
    filter. At most ``limit`` calls are run, oldest first. Observer hooks do not run; decision hooks
    run with ``HOOKD_REPLAY=1``; nothing replayed is published as a call."""

    id: RequestId
    first: int | None = None
    last: int | None = None
    since: float | None = None
    points: Annotated[list[PointGlob], msgspec.Meta(max_length=64)] = []
    sessions: Annotated[list[str], msgspec.Meta(max_length=1024)] = []
    limit: ReplayLimit = 1000


class Verdict(msgspec.Struct, frozen=True):
    """An outcome as the journal keeps it: the decision (null: no hook decided), why, and who decided."""

    decision: DecisionKind | None = None
    reason: str | None = None
    decided_by: HookRef | None = None
    errors: int = 0


class HookAnswer(msgspec.Struct):
    """What one decision hook answered in the replay: ``answer`` is its decision, ``abstain`` (ran, no
    decision), ``error``, ``timeout``, ``not_run`` or ``skipped`` (its ``match`` left the call out)."""

    hook: HookRef
    answer: str
    reason: str | None = None


class ReplayedCall(msgspec.Struct):
    """One journaled call run again. ``differs``: the decision now is not the decision then.
    ``changed`` names what changed among decision, reason and decided_by. ``hooks`` are the hooks
    behind a change (the one that decided then, the one that decides now), ``answers`` what every
    decision hook answered now, in chain order."""

    seq: int
    time: float
    point: str
    session: str | None = None
    project: str | None = None
    then: Verdict = Verdict()
    now: Verdict = Verdict()
    differs: bool = False
    changed: list[str] = []
    hooks: list[HookRef] = []
    answers: list[HookAnswer] = []
    errors: list[HookError] = []
    not_run: list[NotRun] = []


class Replayed(Reply, tag="replayed", omit_defaults=False):
    """Answer to ``replay``: the calls run again, oldest first. ``differ`` counts those whose decision
    changed; ``more`` is true when ``limit`` stopped the replay before the range's end; ``unreadable``
    counts journaled calls that could not be run again (their payload was not kept whole)."""

    id: int
    calls: list[ReplayedCall] = []
    differ: int = 0
    more: bool = False
    unreadable: int = 0
