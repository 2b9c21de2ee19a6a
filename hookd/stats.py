"""What each hook did, counted as calls go: per hook, per point and per session, over the
daemon's life and over a recent window.

The decide path pays for one :meth:`Stats.decide` per call: a few dict look-ups and
integer increments per hook, no allocation past a hook's first call in a window slice.
Durations go into log buckets (16 per doubling, so a quantile is within about 3% of the
true value) rather than a list: memory is bounded by the range of durations seen, never
by the number of calls, and a quantile is read by walking the few buckets in use.

The recent window is a ring of ``SLICES`` slices of ``window / SLICES`` seconds each; a
reading merges the slices younger than the window, so "recent" means the last ``window``
seconds give or take one slice. Sessions and hooks are bounded in number (the oldest
entry is forgotten first), so a flood of session ids costs bounded memory.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from hookd_client import messages as m

SUB = 16  # buckets per doubling of the duration
SLICES = 10
MAX_SESSIONS = 1_000
MAX_HOOKS = 10_000
MAX_POINTS = 1_000
_MIN_MS = 1e-3  # below a microsecond: counted in the lowest bucket
_MAX_MS = 1e9  # a duration past ~11 days (or not a number) is counted here
_LOWEST = math.frexp(_MIN_MS)[1] * SUB


def bucket(ms: float) -> int:
    """The log bucket of a duration in milliseconds; any float is accepted (hostile ones clamped)."""
    if not ms > _MIN_MS:  # also NaN and negatives
        return _LOWEST
    if ms > _MAX_MS:
        ms = _MAX_MS
    mant, exp = math.frexp(ms)  # ms = mant * 2**exp, 0.5 <= mant < 1
    return exp * SUB + int((mant - 0.5) * 2 * SUB)


def bucket_value(index: int) -> float:
    """A duration representative of a bucket (its middle)."""
    exp, sub = divmod(index, SUB)
    return math.ldexp(0.5 + (sub + 0.5) / (2 * SUB), exp)


class Tally:
    """Counts and a duration histogram over one span of time."""

    __slots__ = ("allows", "asks", "calls", "denies", "errors", "hist", "max", "skips", "timeouts")

    def __init__(self) -> None:
        self.calls = self.errors = self.timeouts = self.allows = self.denies = self.asks = 0
        self.skips: dict[str, int] = {}
        self.hist: dict[int, int] = {}
        self.max = 0.0

    def ran(self, ms: float, decision: str | None, error: str | None) -> None:
        self.calls += 1
        b = bucket(ms)
        hist = self.hist
        hist[b] = hist.get(b, 0) + 1
        if ms > self.max:
            self.max = min(ms, _MAX_MS)
        if error is not None:
            self.errors += 1
            if error == "timeout":
                self.timeouts += 1
        elif decision == "deny":
            self.denies += 1
        elif decision == "ask":
            self.asks += 1
        elif decision == "allow":
            self.allows += 1

    def skipped(self, reason: str) -> None:
        self.skips[reason] = self.skips.get(reason, 0) + 1

    def merge(self, other: Tally) -> None:
        self.calls += other.calls
        self.errors += other.errors
        self.timeouts += other.timeouts
        self.allows += other.allows
        self.denies += other.denies
        self.asks += other.asks
        for k, v in other.skips.items():
            self.skips[k] = self.skips.get(k, 0) + v
        for k, v in other.hist.items():
            self.hist[k] = self.hist.get(k, 0) + v
        self.max = max(self.max, other.max)

    def quantiles(self, qs: Iterable[float]) -> list[float | None]:
        """Durations at the quantiles ``qs`` (ascending), each within a bucket's width; None with no run."""
        total = sum(self.hist.values())
        if not total:
            return [None for _ in qs]
        out: list[float | None] = []
        items = sorted(self.hist.items())
        seen, i = 0, 0
        for q in qs:
            rank = max(1, math.ceil(q * total))
            while seen + items[i][1] < rank:
                seen += items[i][1]
                i += 1
            out.append(round(min(bucket_value(items[i][0]), self.max), 3))
        return out

    def counts(self) -> m.Counts:
        p50, p95, p99 = self.quantiles((0.5, 0.95, 0.99))
        return m.Counts(
            self.calls,
            self.errors,
            self.timeouts,
            self.allows,
            self.denies,
            self.asks,
            dict(self.skips),
            p50,
            p95,
            p99,
            round(self.max, 3) if self.calls else None,
        )


class Span:
    """One hook's (or point's, or session's) tallies: its whole life and the recent slices."""

    __slots__ = ("life", "ring", "slice")

    def __init__(self) -> None:
        self.life = Tally()
        self.ring: deque[tuple[int, Tally]] = deque()
        self.slice: Tally = Tally()

    def now(self, index: int) -> Tally:
        """The tally of the current slice (``index``), started when the slice changes."""
        ring = self.ring
        if not ring or ring[-1][0] != index:
            while ring and ring[0][0] <= index - SLICES:
                ring.popleft()
            self.slice = Tally()
            ring.append((index, self.slice))
        return self.slice

    def recent(self, index: int, slices: int) -> Tally:
        out = Tally()
        for i, tally in self.ring:
            if i > index - slices:
                out.merge(tally)
        return out


class HookEntry(Span):
    __slots__ = ("hook", "last_error", "last_error_time", "point", "shadow", "type")

    def __init__(self, hook: m.HookRef, point: str, kind: str, shadow: bool) -> None:
        super().__init__()
        self.hook = hook
        self.point = point
        self.type = kind
        self.shadow = shadow
        self.last_error: str | None = None
        self.last_error_time: float | None = None


def _bounded_put(table: dict[Any, Any], key: Any, value: Any, bound: int) -> None:
    if len(table) >= bound:
        del table[next(iter(table))]  # the oldest entry goes first
    table[key] = value


class Stats:
    def __init__(self, window: float = 300.0, clock: Any = time.monotonic) -> None:
        self.window = window
        self.slice_seconds = window / SLICES
        self.clock = clock
        self.since = time.time()
        self.hooks: dict[tuple[str, str, str, str], HookEntry] = {}
        self.points: dict[str, Span] = {}
        self.sessions: dict[str, Span] = {}

    def _index(self) -> int:
        return int(self.clock() / self.slice_seconds)

    def _hook(self, ref: m.HookRef, point: str, kind: str, shadow: bool) -> HookEntry:
        key = (ref.name, ref.scope, ref.source, point)
        entry = self.hooks.get(key)
        if entry is None:
            entry = HookEntry(ref, point, kind, shadow)
            _bounded_put(self.hooks, key, entry, MAX_HOOKS)
        entry.shadow = shadow
        return entry

    def run(self, run: m.HookRun, point: str, index: int | None = None) -> None:
        """Count one hook's run or skip."""
        if index is None:
            index = self._index()
        entry = self._hook(run.hook, point, run.type, run.shadow)
        now = entry.now(index)
        if run.skipped is not None:
            entry.life.skipped(run.skipped)
            now.skipped(run.skipped)
            return
        ms = run.ms if run.ms is not None else 0.0
        entry.life.ran(ms, run.decision, run.error)
        now.ran(ms, run.decision, run.error)
        if run.error is not None:
            entry.last_error = f"{run.error}: {run.message}" if run.message else run.error
            entry.last_error_time = time.time()

    def decide(self, point: str, session: str | None, runs: list[m.HookRun], ms: float, decision: str | None) -> None:
        """Count one decide: each of its hooks, and the whole chain under its point and session."""
        index = self._index()
        for run in runs:
            self.run(run, point, index)
        span = self.points.get(point)
        if span is None:
            span = Span()
            _bounded_put(self.points, point, span, MAX_POINTS)
        span.life.ran(ms, decision, None)
        span.now(index).ran(ms, decision, None)
        if session is not None:
            span = self.sessions.get(session)
            if span is None:
                span = Span()
                _bounded_put(self.sessions, session, span, MAX_SESSIONS)
            span.life.ran(ms, decision, None)
            span.now(index).ran(ms, decision, None)

    def reply(self, rid: int, window: float | None) -> m.Stats:
        window = self.window if window is None else min(window, self.window)
        slices = max(1, math.ceil(window / self.slice_seconds))
        index = self._index()
        hooks = [
            m.HookStats(
                e.hook,
                e.point,
                e.type,  # type: ignore[arg-type]
                e.life.counts(),
                e.recent(index, slices).counts(),
                e.shadow,
                e.last_error,
                e.last_error_time,
            )
            for e in self.hooks.values()
        ]
        points = [m.GroupStats(k, s.life.counts(), s.recent(index, slices).counts()) for k, s in self.points.items()]
        sessions = [m.GroupStats(k, s.life.counts(), s.recent(index, slices).counts()) for k, s in self.sessions.items()]
        return m.Stats(rid, self.since, window, True, hooks, points, sessions)
