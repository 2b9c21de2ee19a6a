"""The journal against a full disk and a killed daemon, with a real daemon.

A full disk is a file size limit (RLIMIT_FSIZE) on the daemon process: past it a
write stores part of its data, then fails (EFBIG), exactly the short-write-then-error
path ENOSPC takes. Raising the limit (prlimit) is the disk getting space again.
"""

from __future__ import annotations

import resource
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hookd_client import Client, Event, Gap

from hookd.events import journal_files

from ..conftest import HOOKD, Env, wait_for_socket

_decoder = msgspec.json.Decoder(Event)


def start_limited(env: Env, limit: int) -> subprocess.Popen[bytes]:
    hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]

    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))

    log = open(env.root / f"daemon-limited-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(
        [*HOOKD, "serve", "--log-level", "warning"], env=env.env, stdout=log, stderr=log, cwd=env.root, preexec_fn=limit_files
    )
    log.close()
    wait_for_socket(env.socket, proc)
    return proc


@pytest.fixture
def limited(env: Env) -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()


def until(sub: Any, stop: Any, seen: list[Event]) -> Event:
    """Read the stream into ``seen`` until an event satisfies ``stop``; the stream must not lose any."""
    for item in sub:
        assert not isinstance(item, Gap), item
        seen.append(item)
        if stop(item):
            return item
    raise AssertionError("the stream ended")


def reported(seen: list[Event]) -> int:
    return sum(e.payload["count"] for e in seen if e.point == "hookd.journal.lost" and e.payload.get("reason") == "write failed")


def journal_lines(env: Env) -> list[bytes]:
    path = env.state / "hookd" / "events.jsonl"
    data = b"".join(Path(name).read_bytes() for name in journal_files.files(str(path)))
    assert data.endswith(b"\n"), "the journal ends in a torn line"
    return data.splitlines()


def test_a_full_disk_tears_no_line_and_counts_and_reports_every_lost_event(env: Env, limited) -> None:  # type: ignore[no-untyped-def]
    proc = start_limited(env, 48 * 1024)
    limited.append(proc)
    seen: list[Event] = []
    with Client(env.socket, timeout=30) as c, c.subscribe(timeout=60, queue=100_000) as sub:
        for i in range(1500):
            c.emit("custom.fill", {"i": i, "text": "the disk fills up " * 4})
        # The failure is announced when the writer first fails, which may be before or after the
        # last emit reaches the stream (the writer gets events in batches).
        until(
            sub,
            lambda _: (
                any(e.point == "hookd.journal.failed" for e in seen)
                and any(e.point == "custom.fill" and e.payload["i"] == 1499 for e in seen)
            ),
            seen,
        )
        # The disk has room again.
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (hard, hard))
        c.emit("custom.after", {"first": "after recovery"})
        until(sub, lambda e: e.point == "custom.after", seen)
        deadline = time.monotonic() + 30
        while b"custom.after" not in (env.state / "hookd" / "events.jsonl").read_bytes():
            assert time.monotonic() < deadline, "the first event after recovery never reached the journal"
            time.sleep(0.05)
        # Everything numbered before it is now on disk or lost; the loss report follows the write
        # that worked (from the writer thread), so read the stream until it accounts for all of them.
        written = {e.seq for e in journal_files.read(str(env.state / "hookd" / "events.jsonl"))}
        gone = len([e for e in seen if e.seq not in written])
        if reported(seen) < gone:
            until(sub, lambda e: reported(seen) >= gone, seen)
        # The loss is in the daemon's status too, where `hookd status` shows it.
        journal = c.status().journal
        assert journal is not None and journal.enabled and journal.lost >= gone > 0 and journal.written > 0, journal
        shown = env.hookd("status").stdout
        assert f"lost {journal.lost}" in shown, shown
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0

    lines = journal_lines(env)
    events = [_decoder.decode(line) for line in lines]  # raises on a corrupt line
    on_disk = {e.seq for e in events}
    live = {e.seq for e in seen}
    missing = sorted(s for s in live if s not in on_disk)
    assert missing, "the limit was never hit: the test proves nothing"
    reports = [e for e in seen if e.point == "hookd.journal.lost" and e.payload.get("reason") == "write failed"]
    assert sum(r.payload["count"] for r in reports) == len(missing)
    assert all(any(r.payload["from"] <= s <= r.payload["to"] for r in reports) for s in missing)
    assert any(e.point == "custom.after" and e.payload == {"first": "after recovery"} for e in events)
    assert [e.seq for e in events] == sorted(on_disk)


def test_seqs_seen_live_are_never_reused_after_sigkill_even_when_the_journal_lost_them(env: Env, limited, daemon_factory) -> None:  # type: ignore[no-untyped-def]
    # A small file limit guarantees the journal cannot have caught up when the daemon is killed.
    proc = start_limited(env, 16 * 1024)
    limited.append(proc)
    seen: list[Event] = []
    with Client(env.socket, timeout=30) as c, c.subscribe(timeout=60, queue=100_000) as sub:
        for i in range(500):
            c.emit("custom.before", {"i": i, "pad": "x" * 40})
        until(sub, lambda e: e.point == "custom.before" and e.payload["i"] == 499, seen)
    proc.kill()
    proc.wait()
    last_live = max(e.seq for e in seen)
    path = str(env.state / "hookd" / "events.jsonl")
    journaled = journal_files.last_event(path)
    on_disk = {e.seq for e in journal_files.read(path)}
    # Seqs subscribers saw that the journal never got (a late small announcement may still have
    # fit on the full disk, so the journal's last line need not be older than every one of them).
    # The writer may not even have written its first batch (events wait up to 250 ms to be handed over).
    journaled_seq = journaled.seq if journaled is not None else 0
    assert {e.seq for e in seen} - on_disk

    daemon = daemon_factory()
    with daemon.client() as c:
        c.emit("custom.next", {})
        history = list(c.subscribe(since=0, follow=False, timeout=30))
    events = [e for e in history if isinstance(e, Event)]
    assert all(e.seq > last_live for e in events), "a seq a subscriber already saw was handed out again"
    lost = [e for e in events if e.point == "hookd.journal.lost"]
    assert lost and lost[0].payload["from"] == journaled_seq + 1 and lost[0].payload["to"] >= last_live
    assert lost[0].payload["reason"] == "unclean stop"


def test_after_a_plain_sigkill_the_next_daemon_continues_after_what_subscribers_saw(env: Env, daemon_factory) -> None:  # type: ignore[no-untyped-def]
    first = daemon_factory()
    seen: list[Event] = []
    with first.client() as c, c.subscribe(timeout=60, queue=100_000) as sub:
        for i in range(300):
            c.emit("custom.before", {"i": i})
        until(sub, lambda e: e.point == "custom.before" and e.payload["i"] == 299, seen)
        first.kill()  # at once: the journal writer batches, so its tail is likely not on disk
    last_live = max(e.seq for e in seen)
    second = daemon_factory()
    with second.client() as c:
        c.emit("custom.next", {})
        events = [e for e in c.subscribe(since=0, follow=False, timeout=30) if isinstance(e, Event)]
    assert events and all(e.seq > last_live for e in events)
    assert second.stop() == 0
    # Every line on disk reads back, in order, without duplicates.
    seqs = [e.seq for e in journal_files.read(str(env.state / "hookd" / "events.jsonl"))]
    assert seqs == sorted(set(seqs)) and seqs[-1] > last_live
