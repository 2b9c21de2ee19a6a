"""Attacks from outside, on a real daemon: what must hold under each (figures: bench/attacks.md)."""

from __future__ import annotations

import os
import resource
import shutil
import tempfile

import pytest

from . import scenarios as s

# Small bounds so that each attack reaches them quickly; the defaults are in docs/protocol.md.
WRITE_BOUND = 8 << 20


def test_another_user_can_neither_reach_nor_talk_to_the_daemon(env, daemon_factory):  # type: ignore[no-untyped-def]
    if os.getuid() != 0:
        pytest.skip("acting as another user needs root (setuid in a forked child)")
    # A socket outside pytest's private base directory, so that the other user can be let in to try.
    top = tempfile.mkdtemp(prefix="hookd-attack-")
    try:
        env.env["HOOKD_SOCKET"] = os.path.join(top, "run", "hookd.sock")
        d = daemon_factory("--no-user-hooks")
        figures = s.other_uid(d, [top])
        d.kill()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    assert figures["blocked_by_directory"] == "eacces", figures
    assert figures["refused_by_daemon"] == "closed", figures  # SO_PEERCRED: closed without a byte
    assert figures["daemon_serving"]


def test_100k_fuzzed_frames_each_request_answered_exactly_once(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--no-journal")
    figures = s.fuzz(d, frames=100_000)
    assert figures["replies_checked"] > 50_000, figures


def test_2000_connections_at_once(daemon_factory):  # type: ignore[no-untyped-def]
    __, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 2400:
        pytest.skip(f"the open-file hard limit ({hard}) is below what 2,000 connections need on both ends")
    d = daemon_factory("--no-user-hooks")
    figures = s.many_connections(d, 2000)
    assert figures["served"] == 2000 and figures["reported_by_status"] >= 2001, figures


def test_slowloris_half_frames_are_closed(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--frame-timeout", "1")
    figures = s.slowloris(d, 200)
    assert figures["closed_by_daemon"] == 200 and figures["connections_left"] == 0, figures


def test_10k_pipelined_decides_with_their_callback_on_the_same_connection(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks")
    figures = s.pipelined_callbacks(d, 10_000)
    assert figures["denied_by_callback"] == 10_000, figures


def test_sigkill_of_a_callback_holder_fails_its_waiting_decides_at_once(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks")
    figures = s.killed_holder(d, 50)
    assert figures["answered_deny_with_error"] == 50, figures


def test_sigstop_of_a_callback_holder_does_not_grow_the_daemon(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--max-write-buffer", str(WRITE_BOUND))
    figures = s.stopped_holder(d, decides=120, blob=256 << 10)
    assert figures["queued_to_holder_mib"] > 3 * (WRITE_BOUND >> 20)  # more than the bound was aimed at it
    # Bounded: the write bound, the requests themselves in flight, the event history's copy of
    # those calls (a byte-bounded ring), and slack for the allocator.
    history_mib = min(64, (120 * (256 << 10)) >> 20)
    assert figures["rss_after_mib"] - figures["rss_before_mib"] < 3 * (WRITE_BOUND >> 20) + history_mib + 64, figures


def test_a_stalled_subscriber_costs_bounded_memory_and_is_told_what_it_missed(daemon_factory):  # type: ignore[no-untyped-def]
    d = daemon_factory("--no-user-hooks", "--no-journal", "--history", "1000", "--history-bytes", str(1 << 20))
    figures = s.stalled_subscriber(d, events=10_000)
    assert figures["delivered"] + figures["reported_missed"] == 10_000 or figures["subscriber_dropped"], figures
    assert figures["reported_missed"] > 0 or figures["subscriber_dropped"], figures
    assert figures["rss_after_mib"] - figures["rss_before_mib"] < 64, figures
