"""The event stream: subscribe, then Event frames, Gap notices and the Live marker."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from .base import DecisionKind, HookRef, Reply, Request, RequestId
from .observe import HookRun

PointGlob = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class Subscribe(Request, tag="subscribe"):
    """Turn this connection into a stream of Event frames (one subscription per connection).

    Filters combine with AND; an empty list matches everything. ``points`` are
    shell-style globs (``tool.*``). ``since_seq`` replays history from that
    sequence number, ``since_age`` replays the last that many seconds; without
    either the stream starts live. ``follow=False`` ends the stream after the
    replay (a Live frame, then the daemon drops the subscription).
    ``queue``/``queue_bytes`` ask for another per-subscriber bound (the daemon caps them).
    """

    id: RequestId
    points: list[PointGlob] = []
    sessions: list[str] = []
    projects: list[str] = []
    since_seq: Annotated[int, msgspec.Meta(ge=0)] | None = None
    since_age: Annotated[float, msgspec.Meta(ge=0)] | None = None
    follow: bool = True
    queue: Annotated[int, msgspec.Meta(ge=1)] | None = None
    queue_bytes: Annotated[int, msgspec.Meta(ge=1024)] | None = None


class Unsubscribe(Request, tag="unsubscribe"):
    id: RequestId


EventKind = Literal["emit", "decide", "internal"]


GapReason = Literal["overflow", "history"]


class Subscribed(Reply, tag="subscribed"):
    """Answer to ``subscribe``. ``last`` is the newest seq published when it took effect."""

    id: int
    last: int
    oldest: int
    queue: int
    queue_bytes: int


class Event(Reply, tag="event"):
    """One event on the bus. ``seq`` grows by one per event for the daemon's lifetime
    (and continues from the journal across restarts). ``time`` is Unix seconds.
    Decisions carry their outcome; ``duration`` is the decision chain's milliseconds.
    Stream frames carry no request id (a connection holds one subscription)."""

    seq: int
    time: float
    kind: EventKind
    point: str
    session: str | None = None
    project: str | None = None
    payload: dict[str, Any] = {}
    decision: DecisionKind | None = None
    reason: str | None = None
    decided_by: HookRef | None = None
    errors: int = 0
    duration: float | None = None
    id: int = 0
    # A decide's hooks, in the order they ran (shadow hooks last): each one's answer, duration,
    # failure or reason for not running. No payloads and no output: see a decide's trace for those.
    hooks: list[HookRun] = []


class Gap(Reply, tag="gap"):
    """``missed`` events that matched the subscription were not delivered: the subscriber fell
    behind (``overflow``) or asked for history older than the daemon keeps (``history``; then
    ``missed`` counts every event in the range, matching or not). ``first``..``last`` is their seq range."""

    missed: int
    first: int
    last: int
    reason: GapReason = "overflow"
    id: int = 0


class Live(Reply, tag="live"):
    """The replay is over: what follows is live. ``seq`` is the newest seq at that point."""

    seq: int
    id: int = 0
