"""What each hook did, counted as calls go: per hook, per point and per session, over the
daemon's life and over a recent window.

The decide path pays for one :meth:`Stats.decide` per call: a few dict look-ups and
integer increments per hook and one each for the point and the session, no allocation past
a hook's first call in a window slice (only the current slice is updated; the life total is
added up when it is read).
Durations go into log buckets (16 per doubling, so a quantile is within about 3% of the
true value) rather than a list: memory is bounded by the range of durations seen, never
by the number of calls, and a quantile is read by walking the few buckets in use.

The recent window is a ring of ``SLICES`` slices of ``window / SLICES`` seconds each; a
reading merges the slices younger than the window, so "recent" means the last ``window``
seconds give or take one slice. Sessions and hooks are bounded in number (the oldest
entry is forgotten first), so a flood of session ids costs bounded memory.
"""

from __future__ import annotations

import asyncio
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
MAX_AGENTS = 100  # agents are named by bridges; a client may name any, so they are bounded too
MAX_RULES = 64  # distinct rules counted per hook and slice; hooks name them, so they are bounded
OTHER_RULES = "(other rules)"
BATCH = 256  # calls queued before they are folded into the tallies
_MIN_MS = 1e-3  # below a microsecond: counted in the lowest bucket
_MAX_MS = 1e9  # a duration past ~11 days (or not a number) is counted here
_LOWEST = math.frexp(_MIN_MS)[1] * SUB
_TWICE_SUB = 2 * SUB
_frexp = math.frexp


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
    """Counts and a duration histogram over one span of time. ``outcomes`` counts runs by how they
    ended: the error code (``error``, ``timeout``) or else the decision (None: an abstention)."""

    __slots__ = ("hist", "max", "outcomes", "rules", "skips")

    def __init__(self) -> None:
        self.outcomes: dict[str | None, int] = {}
        self.skips: dict[str, int] = {}
        self.rules: dict[str, int] = {}  # answers that named a rule (a built-in guard's), by rule
        self.hist: dict[int, int] = {}
        self.max = 0.0

    @property
    def calls(self) -> int:
        return sum(self.hist.values())

    def ran(self, ms: float, decision: str | None, error: str | None) -> None:
        # bucket(ms), inlined: this runs for every hook of every call.
        if ms > _MIN_MS:
            if ms > _MAX_MS:
                ms = _MAX_MS
            mant, exp = _frexp(ms)
            b = exp * SUB + int((mant - 0.5) * _TWICE_SUB)
            if ms > self.max:
                self.max = ms
        else:
            b = _LOWEST
        hist = self.hist
        hist[b] = hist.get(b, 0) + 1
        key = error or decision
        outcomes = self.outcomes
        outcomes[key] = outcomes.get(key, 0) + 1

    def skipped(self, reason: str) -> None:
        self.skips[reason] = self.skips.get(reason, 0) + 1

    def ruled(self, rule: str) -> None:
        """One answer that named ``rule``. A hook names its own rules, so their number is bounded:
        past MAX_RULES distinct ones, the rest are counted together under OTHER_RULES."""
        rules = self.rules
        if rule not in rules and len(rules) >= MAX_RULES:
            rule = OTHER_RULES
        rules[rule] = rules.get(rule, 0) + 1

    def merge(self, other: Tally) -> None:
        for k, v in other.outcomes.items():
            self.outcomes[k] = self.outcomes.get(k, 0) + v
        for r, v in other.skips.items():
            self.skips[r] = self.skips.get(r, 0) + v
        rules = self.rules
        for r, v in other.rules.items():
            key = r if r in rules or len(rules) < MAX_RULES else OTHER_RULES
            rules[key] = rules.get(key, 0) + v
        for b, v in other.hist.items():
            self.hist[b] = self.hist.get(b, 0) + v
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
        o = self.outcomes.get
        calls = self.calls
        return m.Counts(
            calls,
            o("error", 0) + o("timeout", 0),
            o("timeout", 0),
            o("allow", 0),
            o("deny", 0),
            o("ask", 0),
            dict(self.skips),
            p50,
            p95,
            p99,
            round(self.max, 3) if calls else None,
            dict(self.rules),
        )


class Span:
    """One hook's (or point's, or session's) tallies: one per recent slice, and what slices too old
    for the window added up (``retired``). A call updates only the current slice's tally; the
    life is the retired tally plus the slices in the ring."""

    __slots__ = ("retired", "ring")

    def __init__(self) -> None:
        self.retired = Tally()
        self.ring: deque[tuple[int, Tally]] = deque()

    def now(self, index: int) -> Tally:
        """The tally of the current slice (``index``), started when the slice changes."""
        ring = self.ring
        if ring and ring[-1][0] == index:
            return ring[-1][1]
        while ring and ring[0][0] <= index - SLICES:
            self.retired.merge(ring.popleft()[1])
        tally = Tally()
        ring.append((index, tally))
        return tally

    def life(self) -> Tally:
        out = Tally()
        out.merge(self.retired)
        for _, tally in self.ring:
            out.merge(tally)
        return out

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
    """The counts. A call only queues what it did (:meth:`decide`, :meth:`run`: one tuple appended);
    the queue is folded into the tallies every BATCH calls, after the call that fills it is
    answered, and before each reading: the decide path pays for an append."""

    def __init__(self, window: float = 300.0, clock: Any = time.monotonic) -> None:
        self.window = window
        self.slice_seconds = window / SLICES
        self.clock = clock
        self.since = time.time()
        self._clock0 = clock()
        self.hooks: dict[tuple[str, str, str, str], HookEntry] = {}
        self.points: dict[str, Span] = {}
        self.sessions: dict[str, Span] = {}
        self.agents: dict[str, Span] = {}
        self._pending: list[tuple[float, str, str | None, Any, float | None, str | None, str | None]] = []

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

    def run(self, run: m.HookRun, point: str) -> None:
        """Count one hook's run or skip outside a decide (an observer's)."""
        pending = self._pending
        pending.append((self.clock(), point, None, (run,), None, None, None))
        if len(pending) == BATCH:
            self._fold_soon()

    def decide(
        self, point: str, session: str | None, runs: list[m.HookRun], ms: float, decision: str | None, agent: str | None = None
    ) -> None:
        """Count one decide: each of its hooks, and the whole chain under its point, session and agent."""
        pending = self._pending
        pending.append((self.clock(), point, session, runs, ms, decision, agent))
        if len(pending) == BATCH:
            self._fold_soon()

    def _fold_soon(self) -> None:
        """Fold once the current call is answered (its reply is written first), or now outside a loop."""
        try:
            asyncio.get_running_loop().call_soon(self.flush)
        except RuntimeError:
            self.flush()

    def flush(self) -> None:
        """Fold the queued calls into the tallies (a loop kept flat: it runs for every hook of every call)."""
        pending, self._pending = self._pending, []
        seconds = self.slice_seconds
        hooks = self.hooks
        points = self.points
        sessions = self.sessions
        agents = self.agents
        for when, point, session, runs, ms, decision, agent in pending:
            index = int(when / seconds)
            for run in runs:
                ref = run.hook
                entry = hooks.get((ref.name, ref.scope, ref.source, point))
                if entry is None or entry.shadow is not run.shadow:
                    entry = self._hook(ref, point, run.type, run.shadow)
                ring = entry.ring
                tally = ring[-1][1] if ring and ring[-1][0] == index else entry.now(index)
                skipped = run.skipped
                if skipped is not None:
                    skips = tally.skips
                    skips[skipped] = skips.get(skipped, 0) + 1
                    continue
                error = run.error
                tally.ran(run.ms or 0.0, run.decision, error)
                if run.rule is not None:
                    tally.ruled(run.rule)
                if error is not None:
                    entry.last_error = f"{error}: {run.message}" if run.message else error
                    entry.last_error_time = self.since + (when - self._clock0)
            if ms is None:
                continue
            # Written out three times, not a helper per table: this runs for every decide, and a
            # helper's calls cost the fold about 6% more work per decide.
            span = points.get(point)
            if span is None:
                span = Span()
                _bounded_put(points, point, span, MAX_POINTS)
            ring = span.ring
            (ring[-1][1] if ring and ring[-1][0] == index else span.now(index)).ran(ms, decision, None)
            if session is not None:
                span = sessions.get(session)
                if span is None:
                    span = Span()
                    _bounded_put(sessions, session, span, MAX_SESSIONS)
                ring = span.ring
                (ring[-1][1] if ring and ring[-1][0] == index else span.now(index)).ran(ms, decision, None)
            if agent is not None:
                span = agents.get(agent)
                if span is None:
                    span = Span()
                    _bounded_put(agents, agent, span, MAX_AGENTS)
                ring = span.ring
                (ring[-1][1] if ring and ring[-1][0] == index else span.now(index)).ran(ms, decision, None)

    def reply(self, rid: int, window: float | None) -> m.Stats:
        self.flush()
        window = self.window if window is None else min(window, self.window)
        slices = max(1, math.ceil(window / self.slice_seconds))
        index = self._index()
        hooks = [
            m.HookStats(
                e.hook,
                e.point,
                e.type,  # type: ignore[arg-type]
                e.life().counts(),
                e.recent(index, slices).counts(),
                e.shadow,
                e.last_error,
                e.last_error_time,
            )
            for e in self.hooks.values()
        ]
        points = [m.GroupStats(k, s.life().counts(), s.recent(index, slices).counts()) for k, s in self.points.items()]
        sessions = [m.GroupStats(k, s.life().counts(), s.recent(index, slices).counts()) for k, s in self.sessions.items()]
        agents = [m.GroupStats(k, s.life().counts(), s.recent(index, slices).counts()) for k, s in self.agents.items()]
        return m.Stats(rid, self.since, window, True, hooks, points, sessions, agents)
