"""Calls with very long session ids or custom point names (a client's bug, or hostile) are
answered and journaled like any other, and the daemon keeps none of those names beyond its
bounded history: its memory does not grow with how many distinct long names it has seen."""

from __future__ import annotations

from hookd_client import Client

from .test_session_lifecycle import rss_kib

LONG = 32 << 10  # characters in each name
COUNT = 2500  # distinct names of each kind: ~80 MB each, were any of them kept


def test_distinct_long_session_ids_and_point_names_are_not_kept(daemon_factory) -> None:
    daemon = daemon_factory("--no-journal", "--history", "10")
    with Client(daemon.socket) as c:
        for i in range(50):  # the daemon's own first allocations, before measuring
            c.emit("custom.warm", {"i": i}, session=f"{i:0{LONG}d}")
        before = rss_kib(daemon.proc.pid)
        for i in range(COUNT):
            assert c.emit("tool.execute.after", {"i": i}, session=f"s{i:0{LONG}d}").observers == 0
            assert c.decide("tool.approval.pre", {"i": i}, session=f"d{i:0{LONG}d}").decision is None
            assert c.emit(f"custom.{i:0{LONG}d}", {"i": i}).observers == 0
        grown = rss_kib(daemon.proc.pid) - before
        events = list(c.subscribe(since=0, follow=False, timeout=30))
    assert grown < 40 << 10, f"the daemon grew by {grown} KiB"
    assert [e.payload["i"] for e in events[-3:]] == [COUNT - 1] * 3
    assert events[-1].point == f"custom.{COUNT - 1:0{LONG}d}" and events[-2].session == f"d{COUNT - 1:0{LONG}d}"
