"""The event stream on a real daemon's socket: order across subscribers and emitters, replay joining
live, back-pressure, unsubscribing, the async iterator, reloads by SIGHUP and the status counts. What
the events carry, replay by duration, gaps in history and bad subscriptions: tests/daemon/test_events.py."""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict

from hookd_client import AsyncClient, Client, Event, Gap

HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite


def collect(sub, n: int, out: list, until=None) -> threading.Thread:  # type: ignore[no-untyped-def]
    """Read ``n`` items (or up to the one ``until`` accepts) from an open subscription in a thread."""

    def run() -> None:
        for item in sub:
            out.append(item)
            if len(out) >= n or (until is not None and until(item)):
                return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_order_and_completeness_with_several_subscribers_and_concurrent_emitters(daemon):
    emitters, per = 4, 400
    total = emitters * per
    everything = Client(daemon.socket).subscribe(["custom.*"], timeout=HANG_GUARD).open()
    glob_only = Client(daemon.socket).subscribe(["custom.load"], timeout=HANG_GUARD).open()
    one_session = Client(daemon.socket).subscribe(sessions=["e2"], timeout=HANG_GUARD).open()
    got_all: list = []
    got_glob: list = []
    got_one: list = []
    readers = [collect(everything, total, got_all), collect(glob_only, total, got_glob), collect(one_session, per, got_one)]

    def emit(k: int) -> None:
        with Client(daemon.socket) as c:
            for i in range(per):
                assert c.emit("custom.load", {"e": k, "i": i}, session=f"e{k}").observers == 0

    threads = [threading.Thread(target=emit, args=(k,)) for k in range(emitters)]
    for t in threads:
        t.start()
    for t in threads + readers:
        t.join(HANG_GUARD)
    for sub in (everything, glob_only, one_session):
        sub.close()

    for got in (got_all, got_glob):
        assert all(isinstance(e, Event) for e in got), "no gap for readers that keep up"
        seqs = [e.seq for e in got]
        assert seqs == sorted(seqs) and len(set(seqs)) == total
        per_emitter = defaultdict(list)
        for e in got:
            per_emitter[e.payload["e"]].append(e.payload["i"])
        assert per_emitter == {k: list(range(per)) for k in range(emitters)}
    # Every subscriber saw the same events under the same numbers.
    assert [e.seq for e in got_all] == [e.seq for e in got_glob]
    assert [(e.session, e.payload["i"]) for e in got_one] == [("e2", i) for i in range(per)]


def test_since_seq_replay_joins_live_without_gap_or_duplicate(daemon):
    with Client(daemon.socket) as c:
        first = c.subscribe(["custom.r"], since=0, follow=False)
        for i in range(300):
            c.emit("custom.r", {"i": i})
        seqs = [e.seq for e in first]
        assert len(seqs) == 300
        start = seqs[100]  # replay from the 101st event, while more keep coming

        def more() -> None:
            with Client(daemon.socket) as c2:
                for i in range(300, 600):
                    c2.emit("custom.r", {"i": i})

        t = threading.Thread(target=more)
        t.start()
        sub = c.subscribe(["custom.r"], since=start, timeout=HANG_GUARD)
        got: list = []
        reader = collect(sub, 500, got)
        t.join(HANG_GUARD)
        reader.join(HANG_GUARD)
        sub.close()
    assert [e.payload["i"] for e in got] == list(range(100, 600))
    assert got[0].seq == start


async def _flood(path: str, n: int, chunk: int = 500) -> None:
    async with AsyncClient(path) as c:
        for start in range(0, n, chunk):
            replies = await asyncio.gather(*(c.emit("custom.flood", {"i": i}) for i in range(start, min(n, start + chunk))))
            assert all(r.observers == 0 for r in replies)


def test_a_stalled_subscriber_costs_nobody_and_learns_exactly_what_it_missed(daemon):
    n = 50_000
    stalled = Client(daemon.socket).subscribe(["custom.flood"], queue=1000, timeout=HANG_GUARD).open()
    healthy = Client(daemon.socket).subscribe(["custom.flood", "hookd.subscriber.*"], queue=200_000, timeout=HANG_GUARD).open()
    got: list = []
    reader = collect(healthy, 2 * n, got, until=lambda e: e.payload.get("end"))
    asyncio.run(_flood(daemon.socket, n))  # the stalled subscriber never calls recv meanwhile
    with Client(daemon.socket) as c:
        c.emit("custom.flood", {"end": True})
        assert c.status().emits == n + 1
    reader.join(HANG_GUARD)
    assert got[-1].payload == {"end": True}

    flood = [e for e in got if isinstance(e, Event) and e.point == "custom.flood"]
    assert not any(isinstance(e, Gap) for e in got)
    assert [e.payload["i"] for e in flood[:n]] == list(range(n))
    behind = [e for e in got if isinstance(e, Event) and e.point == "hookd.subscriber.behind"]
    assert len(behind) == 1

    delivered: list[int] = []
    delivered_seqs: set[int] = set()
    missed = 0
    gaps = []
    for item in stalled:  # it reads at last: what was buffered and queued, then the gap
        if isinstance(item, Gap):
            missed += item.missed
            gaps.append(item)
            with Client(daemon.socket) as c:
                c.emit("custom.flood", {"after": True})  # and it is live again
        elif "after" in item.payload:
            break
        else:
            delivered.append(item.payload.get("i", -1))
            delivered_seqs.add(item.seq)
    stalled.close()
    healthy.close()
    assert gaps and all(g.reason == "overflow" for g in gaps)
    assert len(delivered) + missed == n + 1  # the flood and its end marker
    assert delivered == sorted(delivered) and len(set(delivered)) == len(delivered)
    assert len(delivered) < n
    # Every flood event was either delivered or lies in a gap's seq range, never both.
    flood_seqs = {e.seq for e in got if e.point == "custom.flood"}
    in_gaps = {seq for seq in flood_seqs if any(g.first <= seq <= g.last for g in gaps)}
    assert len(in_gaps) == missed
    assert in_gaps.isdisjoint(delivered_seqs) and in_gaps | delivered_seqs == flood_seqs


def test_unsubscribe_ends_the_stream(daemon):
    with Client(daemon.socket) as c:
        sub = c.subscribe(["custom.u"], timeout=HANG_GUARD).open()
        c.emit("custom.u", {"i": 1})
        assert next(sub).payload == {"i": 1}
        sub.unsubscribe()
        c.emit("custom.u", {"i": 2})
        rest = list(sub)
    assert all(e.payload["i"] == 2 for e in rest)  # at most the one sent before the unsubscribe landed


def test_async_iterator(daemon):
    async def main() -> list:
        async with AsyncClient(daemon.socket) as c:
            got = []
            async with c.subscribe(["custom.a"]) as sub:
                for i in range(3):
                    await c.emit("custom.a", {"i": i})
                async for ev in sub:
                    got.append(ev.payload["i"])
                    if len(got) == 3:
                        break
            return got

    assert asyncio.run(asyncio.wait_for(main(), HANG_GUARD)) == [0, 1, 2]


def test_config_loads_and_reloads_are_events(env, daemon_factory):
    import signal

    hooks = env.write_global_hooks(
        """
        hooks:
          - name: log
            point: tool.execute.after
            type: observer
            command: "true"
            enabled: true
        """
    )
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        sub = c.subscribe(["hookd.config.*", "hookd.daemon.*"], since=0, timeout=HANG_GUARD).open()
        started, loaded = next(sub), next(sub)
        assert started.point == "hookd.daemon.started" and started.payload["pid"] == daemon.proc.pid
        assert loaded.point == "hookd.config.reloaded" and loaded.payload["file"] == str(hooks) and loaded.payload["hooks"] == 1
        good = hooks.read_text()
        hooks.write_text("hooks: [ {name: log, point: nowhere.at.all, type: observer, command: x, enabled: true} ]\n")
        daemon.signal(signal.SIGHUP)
        rejected = next(sub)
        # Fixed back to the version in force: no hook changes, yet the stream hears it is accepted again.
        hooks.write_text(good)
        daemon.signal(signal.SIGHUP)
        fixed = next(sub)
        sub.close()
    assert rejected.point == "hookd.config.rejected" and "nowhere.at.all" in " ".join(rejected.payload["problems"])
    assert fixed.point == "hookd.config.reloaded" and fixed.payload["file"] == str(hooks) and fixed.payload["fixed"] is True
    assert fixed.payload["hooks"] == 1 and not fixed.payload.get("added") and not fixed.payload.get("changed")


def test_status_counts_subscribers_and_events(daemon):
    with Client(daemon.socket) as c:
        c.emit("custom.one", {})
        sub = c.subscribe(["custom.*"], timeout=HANG_GUARD).open()
        try:
            st = c.status()
            assert st.subscribers == 1 and st.events >= 2  # hookd.daemon.started, then the emit
        finally:
            sub.close()
