"""hookd.stats with hostile input: any durations (NaN, infinities, negatives, huge), any order, any
clock; quantiles stay ordered, bounded by what was seen, and near the true ones."""

from __future__ import annotations

import math

from hookd_client.messages import HookRef, HookRun
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.events.stats import BATCH, SLICES, Stats, Tally, bucket, bucket_value

REF = HookRef("guard", "global", "/x/hooks.yaml")
anything = st.floats(allow_nan=True, allow_infinity=True)
decisions = st.sampled_from([None, "allow", "deny", "ask", "continue"])
errors = st.sampled_from([None, "error", "timeout"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(anything, decisions, errors), max_size=200))
def test_any_durations_are_counted_and_quantiles_stay_ordered(runs: list[tuple[float, str | None, str | None]]) -> None:
    tally = Tally()
    for ms, decision, error in runs:
        tally.ran(ms, decision, error)
    c = tally.counts()
    assert c.calls == len(runs) == sum(tally.hist.values())
    assert c.errors == sum(1 for _, _, e in runs if e) and c.timeouts == sum(1 for _, _, e in runs if e == "timeout")
    assert c.denies == sum(1 for _, d, e in runs if d == "deny" and not e)
    if not runs:
        assert (c.p50, c.p95, c.p99, c.max) == (None, None, None, None)
        return
    assert c.p50 is not None and c.p95 is not None and c.p99 is not None and c.max is not None
    assert 0 <= c.p50 <= c.p95 <= c.p99 <= c.max
    assert all(math.isfinite(v) for v in (c.p50, c.p95, c.p99, c.max))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(min_value=0.01, max_value=1e6), min_size=1, max_size=300))
def test_quantiles_are_near_the_true_ones(values: list[float]) -> None:
    tally = Tally()
    for v in values:
        tally.ran(v, None, None)
    ordered = sorted(values)
    for q, got in zip((0.5, 0.95, 0.99), tally.quantiles((0.5, 0.95, 0.99)), strict=True):
        true = ordered[max(1, math.ceil(q * len(values))) - 1]
        assert got is not None and abs(got - true) <= true * 0.04 + 0.001, (q, got, true)


@given(anything)
def test_a_bucket_holds_its_value(ms: float) -> None:
    b = bucket(ms)
    if math.isfinite(ms) and 0.01 <= ms <= 1e8:
        assert abs(bucket_value(b) - ms) <= ms * 0.04


def test_the_recent_window_forgets_old_slices_and_life_does_not() -> None:
    now = [1000.0]
    stats = Stats(window=60, clock=lambda: now[0])
    stats.decide("tool.approval.pre", "s1", [HookRun(REF, decision="deny", ms=1.0)], 1.5, "deny")
    now[0] += 30
    stats.decide("tool.approval.pre", "s1", [HookRun(REF, skipped="match")], 0.1, None)
    reply = stats.reply(1, None)
    (hook,) = reply.hooks
    assert (hook.life.calls, hook.recent.calls, hook.recent.skips) == (1, 1, {"match": 1})
    now[0] += 60 + 60 / SLICES
    reply = stats.reply(2, None)
    (hook,) = reply.hooks
    assert (hook.life.calls, hook.life.denies, hook.recent.calls, hook.recent.skips) == (1, 1, 0, {})
    (point,) = reply.points
    assert (point.life.calls, point.recent.calls) == (2, 0)
    assert stats.reply(3, 10).window == 10 and stats.reply(4, 1e9).window == 60


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=8), max_size=50), st.lists(st.floats(min_value=0, max_value=1e12), max_size=20))
def test_many_sessions_and_any_clock_cost_bounded_memory(sessions: list[str], clocks: list[float]) -> None:
    now = [0.0]
    stats = Stats(window=5, clock=lambda: now[0])
    for i, session in enumerate(sessions):
        if clocks:
            now[0] = clocks[i % len(clocks)]
        stats.decide("p", session, [HookRun(REF, ms=1.0)], 1.0, None)
        stats.reply(i, None)
    for entry in stats.hooks.values():
        assert len(entry.ring) <= len(sessions)
        assert entry.life().calls == len(sessions)


def test_calls_queued_past_a_batch_are_all_counted() -> None:
    stats = Stats()
    for i in range(BATCH * 2 + 7):
        stats.decide("p", f"s{i % 3}", [HookRun(REF, decision="deny" if i % 2 else None, ms=float(i))], 1.0, None)
    (hook,) = stats.reply(1, None).hooks
    assert (hook.life.calls, hook.life.denies, hook.recent.calls) == (BATCH * 2 + 7, BATCH + 3, BATCH * 2 + 7)
