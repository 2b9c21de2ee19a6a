"""After an unclean stop the journal's end is found whatever its lines' length, a torn end is cut
off, and seqs continue after every seq the last daemon may have handed out."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from hookd_client.messages import Event

from hookd.core.settings import Settings
from hookd.events import journal_files
from hookd.events.bus_setup import make_bus
from hookd.events.eventcodec import encoded
from hookd.events.journal import Journal
from hookd.events.seqblock import BLOCK, SeqBlocks


def frame(seq: int, payload: dict) -> bytes:  # type: ignore[type-arg]
    return encoded(Event(seq, time.time(), "emit", "custom.x", None, None, payload))[0]


def write(path: Path, entries: list[tuple[int, dict]]) -> None:  # type: ignore[type-arg]
    j = Journal(str(path), 1 << 30, keep=3)
    j.start()
    for seq, payload in entries:
        j.put(seq, frame(seq, payload))
    j.close()


def settings(path: Path) -> Settings:
    return Settings(socket=str(path.parent / "s.sock"), load_user_config=False, journal_path=str(path))


def test_the_last_event_is_found_however_long_its_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    write(path, [(1, {"a": 1}), (2, {"big": "x" * 200_000})])
    assert journal_files.last_event(str(path)).seq == 2  # type: ignore[union-attr]
    # A torn line after it (the daemon died mid-write) does not hide it either.
    with path.open("ab") as f:
        f.write(b'{"type":"event","seq":3,"time":1.0,"kind":"emit","point":"cus')
    assert journal_files.last_event(str(path)).seq == 2  # type: ignore[union-attr]


def test_a_corrupt_last_line_is_skipped_for_the_one_before(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    write(path, [(1, {}), (2, {"big": "y" * 100_000})])
    with path.open("ab") as f:
        f.write(b"z" * 70_000 + b"\n")
    assert journal_files.last_event(str(path)).seq == 2  # type: ignore[union-attr]


def test_after_a_crash_with_a_long_last_line_seqs_continue_and_new_events_read_back(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    write(path, [(seq, {"n": seq}) for seq in range(1, 41)] + [(41, {"big": "x" * (64 * 1024 + 10)})])
    with path.open("ab") as f:
        f.write(b'{"type":"event","seq":42,"ti')  # torn by the crash

    async def restarted() -> list[int]:
        bus = make_bus(settings(path))
        bus.start()
        for i in range(3):
            bus.publish("emit", "custom.after", None, None, {"i": i})
        bus.close()
        return [r[0] for r in bus.ring]

    new = asyncio.run(restarted())
    assert new == [42, 43, 44, 45]  # hookd.journal.repaired (the torn end was cut), then the three
    seqs = [e.seq for e in journal_files.read(str(path))]
    assert seqs[:41] == list(range(1, 42))
    assert seqs[41:] and all(s > 41 for s in seqs[41:])  # nothing reused, nothing hidden by the reader
    points = [e.point for e in journal_files.read(str(path))][-4:]
    assert points == ["hookd.journal.repaired"] + ["custom.after"] * 3


def test_a_torn_end_is_cut_so_the_first_new_event_is_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    write(path, [(1, {}), (2, {})])
    torn = b'{"type":"event","seq":3,"time":1.0,"kind":"em'
    with path.open("ab") as f:
        f.write(torn)
    j = Journal(str(path), 1 << 30, keep=3)
    j.start()
    assert j.torn_bytes == len(torn)
    j.put(3, frame(3, {"first": "after recovery"}))
    j.close()
    events = list(journal_files.read(str(path)))
    assert [e.seq for e in events] == [1, 2, 3] and events[2].payload == {"first": "after recovery"}
    assert path.read_bytes().count(b"\n") == 3


def test_seqs_a_crashed_daemon_reserved_are_never_handed_out_again(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"

    async def life(n: int, clean: bool) -> list[int]:
        bus = make_bus(settings(path))
        bus.start()
        for i in range(n):
            bus.publish("emit", "custom.x", None, None, {"i": i})
        seqs = [r[0] for r in bus.ring]
        if clean:
            bus.close()
        else:
            bus.journal.close()  # type: ignore[union-attr]  # what the disk got; the reservation stays
            bus.journal = None
        return seqs

    first = asyncio.run(life(10, clean=True))
    assert first[0] == 1 and first[-1] == 10
    second = asyncio.run(life(10, clean=True))
    assert second == list(range(11, 21))  # a clean stop keeps the numbering dense
    # Lose the journal's tail as a crash would (the writer had not caught up), without a clean stop.
    crashed = asyncio.run(life(5, clean=False))
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-3]))
    reserved = SeqBlocks(f"{path}.seq")
    previous = reserved.load()
    assert not previous.clean and previous.reserved == crashed[0] + BLOCK - 1

    async def after() -> tuple[list[int], list[dict]]:  # type: ignore[type-arg]
        bus = make_bus(settings(path))
        notes = list(bus._startup_notes)
        bus.start()
        bus.publish("emit", "custom.y", None, None, {})
        seqs = [r[0] for r in bus.ring]
        bus.close()
        return seqs, [p for point, p in notes if point == "hookd.journal.lost"]

    seqs, lost = asyncio.run(after())
    assert min(seqs) > max(crashed)  # never reused, though the journal ends before them
    assert lost and lost[0]["from"] == crashed[-3] and lost[0]["to"] == previous.reserved
    events = list(journal_files.read(str(path)))
    assert any(e.point == "hookd.journal.lost" and e.payload["from"] == crashed[-3] for e in events)


def test_a_writer_still_syncing_when_the_journal_closes_keeps_its_file_and_the_stop_is_not_clean(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A slow disk: every sync before a rotation takes a while, longer than close() waits.
    real_sync = os.fdatasync

    def slow_sync(fd: int) -> None:
        time.sleep(0.3)
        real_sync(fd)

    monkeypatch.setattr(os, "fdatasync", slow_sync)
    path = tmp_path / "events.jsonl"
    j = Journal(str(path), 20_000, keep=50)
    j.start()
    n = 300  # about three rotations' worth
    for seq in range(1, n + 1):
        j.put(seq, frame(seq, {"pad": "x" * 150}))
    j.close(timeout=0.1)
    assert j.failing, "a stop with events the writer still holds was taken for a clean one"
    j._thread.join(30)
    assert not j._thread.is_alive()
    # The writer finished with its own file: every event written, none lost, in order, no line torn.
    assert (j.written, j.lost) == (n, 0)
    assert [e.seq for e in journal_files.read(str(path))] == list(range(1, n + 1))
