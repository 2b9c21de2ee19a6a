"""What the journal's writer reports as the daemon stops is on disk before the stop is recorded:
a failure that ended in the writer's last pass, events dropped at the backlog bound just before,
and a writer that hit an error no write path expects. Each is counted, journaled, and leaves the
next daemon's seqs after every seq handed out. Real bus, real journal files in a temp dir."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hookd_client.messages import Event

from hookd.core.settings import Settings
from hookd.events import journal_files
from hookd.events.bus import Bus
from hookd.events.bus_setup import make_bus
from hookd.events.eventcodec import encoded
from hookd.events.journal import Journal

HANG_GUARD = 30.0  # seconds; only so a bug cannot hang the suite


def frame_of(seq: int) -> bytes:
    return encoded(Event(seq, time.time(), "emit", "custom.x", None, None, {"n": seq, "pad": "x" * 40}))[0]


def settings(path: Path) -> Settings:
    return Settings(socket=str(path.parent / "s.sock"), load_user_config=False, journal_path=str(path))


async def until(condition: Any) -> None:
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        await asyncio.sleep(0.005)


def stopped(path: Path, life: Any) -> tuple[list[Any], dict[str, Any], int, Bus]:
    """Run ``life`` (an async function of the bus that closes it) to the loop's end: the journal's
    events, the seq file, the last seq the bus handed out (teardown included), the next bus."""
    box: dict[str, Bus] = {}

    async def main() -> None:
        bus = box["bus"] = make_bus(settings(path))
        bus.start()
        await life(bus)

    asyncio.run(main())  # its teardown runs what the writer's thread scheduled on the loop
    events = list(journal_files.read(str(path)))
    record = json.loads(Path(f"{path}.seq").read_text())
    return events, record, box["bus"].seq, make_bus(settings(path))


def test_a_failure_that_ends_in_the_writers_last_pass_is_journaled_before_the_stop(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "events.jsonl"
    real = os.writev
    failing = {"on": True}

    def writev(fd: int, parts: Any) -> int:
        if failing["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, parts)

    async def life(bus: Bus) -> None:
        journal = bus.journal
        assert journal is not None
        monkeypatch.setattr(os, "writev", writev)
        for i in range(10):
            bus.publish("emit", "custom.x", None, None, {"i": i})
        journal.flush()
        await until(lambda: journal.failing)
        await until(lambda: not bus.reports.notes)  # hookd.journal.failed is published (and queued)
        failing["on"] = False  # space again: the writer's last pass at close ends the failure
        for i in range(3):
            bus.publish("emit", "custom.y", None, None, {"i": i})
        bus.internal("hookd.daemon.stopped", {})
        bus.close()
        assert bus.journal is journal and not journal.failing

    events, record, last, after = stopped(path, life)
    points = [e.point for e in events]
    assert points.count("hookd.journal.failed") == 1 and points.count("hookd.journal.lost") == 1
    lost = next(e for e in events if e.point == "hookd.journal.lost").payload
    assert lost["reason"] == "write failed" and lost["count"] == 10 and (lost["from"], lost["to"]) == (1, 10)
    assert events[-1].point == "hookd.journal.lost" and events[-1].seq == last  # nothing after it, on disk or not
    assert record == {"reserved": last, "clean": True}
    assert after.first_seq == last + 1 and after._startup_notes == []


def test_events_dropped_just_before_the_stop_are_announced_in_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"

    async def life(bus: Bus) -> None:
        assert bus.journal is not None
        bus.journal.backlog = 5  # a stuck disk, in small: the bound is met before the writer runs
        for i in range(20):
            bus.publish("emit", "custom.x", None, None, {"i": i})
        bus.internal("hookd.daemon.stopped", {})
        bus.close()

    events, record, last, after = stopped(path, life)
    lost = [e for e in events if e.point == "hookd.journal.lost"]
    assert len(lost) == 1 and lost[0].payload["reason"] == "backlog" and lost[0].payload["count"] == 16
    assert [e.seq for e in events] == [1, 2, 3, 4, 5, last] and lost[0].seq == last
    assert record == {"reserved": last, "clean": True}
    assert after.first_seq == last + 1


@pytest.mark.parametrize("rotations", [1, 3])
def test_an_unexpected_error_in_the_writer_costs_only_what_it_held_and_all_of_it_is_counted(tmp_path: Path, rotations: int) -> None:
    path = tmp_path / "events.jsonl"
    journal = Journal(str(path), max_bytes=4_000, keep=50)
    real = journal._rotate
    broken = {"left": rotations}

    def rotate() -> None:
        if broken["left"]:
            broken["left"] -= 1
            raise RuntimeError("an error no write path expects")
        real()

    journal._rotate = rotate  # type: ignore[method-assign]
    reports: list[tuple[str, dict[str, Any]]] = []
    journal.notify = lambda point, payload: reports.append((point, payload))
    journal.start()
    total = 600
    for seq in range(1, total + 1):
        journal.put(seq, frame_of(seq))
    # A bound for a hang, not for speed: with fsyncs and three rotations, 600 events took over the
    # daemon's 5 s stop on a loaded machine, and a writer cut off at the stop is another test's case.
    journal.close(timeout=120)
    on_disk = [e.seq for e in journal_files.read(str(path))]
    assert journal.written == len(on_disk) and journal.written + journal.lost == total
    assert journal.lost > 0 and len(set(on_disk)) == len(on_disk) and on_disk == sorted(on_disk)
    assert journal._in_events == journal._out_events and journal._in_bytes == journal._out_bytes  # the backlog is free again
    failed = [p for point, p in reports if point == "hookd.journal.failed"]
    recovered = [p for point, p in reports if point == "hookd.journal.lost"]
    assert failed and recovered and sum(p["count"] for p in recovered) == journal.lost
    assert on_disk[-1] == total  # the writer went on after each error


def test_a_writer_still_at_work_at_the_stop_reports_to_the_log_not_the_bus(tmp_path: Path, monkeypatch) -> None:
    import threading

    path = tmp_path / "events.jsonl"
    real = os.writev
    entered, release = threading.Event(), threading.Event()
    held = {"on": False}

    def writev(fd: int, parts: Any) -> int:
        if held["on"]:
            entered.set()
            release.wait(HANG_GUARD)
            raise OSError(errno.EIO, "Input/output error")
        return real(fd, parts)

    async def life(bus: Bus) -> None:
        journal = bus.journal
        assert journal is not None
        stop = journal.stop
        journal.stop = lambda timeout=5.0: stop(0.05)  # type: ignore[method-assign]  # a slow disk, in small
        bus.publish("emit", "custom.x", None, None, {"i": 0})
        journal.flush()
        await until(lambda: journal.written == 1)
        monkeypatch.setattr(os, "writev", writev)
        held["on"] = True
        for i in range(5):
            bus.publish("emit", "custom.x", None, None, {"i": i})
        journal.flush()
        await until(entered.is_set)  # the writer is inside a write that will outlast the stop
        bus.close()
        last = bus.seq
        release.set()  # the write fails now: its report comes after the stop is recorded
        await until(lambda: journal.lost == 5)
        assert bus.seq == last and not bus.reports.notes

    events, record, last, after = stopped(path, life)
    assert [e.seq for e in events] == [1] and record == {"reserved": last, "clean": False}
    assert after.first_seq == last + 1  # the report took no seq: none is handed out twice
    assert [(p, n["reason"], n["from"], n["to"]) for p, n in after._startup_notes] == [("hookd.journal.lost", "unclean stop", 2, last)]
