"""The journal encodes events a batch at a time (on the loop) and its writer thread only writes;
rotation and odd payloads stay exact."""

from __future__ import annotations

import asyncio
import ctypes
import mmap
import os
import threading
import time
from pathlib import Path

import msgspec
import pytest
from hookd_client.messages import Event

from hookd.events import journal_lines
from hookd.events.eventcodec import encoded
from hookd.events.journal import BATCH, CHUNK, Journal, files, read

PAYLOAD = {"toolName": "read_file", "args": {"path": "/tmp/project/README.md"}}


def record(seq: int, payload: dict) -> tuple[int, bytes, object]:  # type: ignore[type-arg]
    frame, ev = encoded(Event(seq, time.time(), "emit", "tool.execute.after", "s1", None, payload))
    # The bus hands over the struct with the frame; a caller without one gets its frame decoded.
    return seq, frame, ev if seq % 2 else None


def drain(path: Path, records: list[tuple[int, bytes, object]], max_bytes: int = 1 << 30) -> list[str]:
    journal = Journal(str(path), max_bytes, keep=50)
    journal._open()
    for seq, frame, event in records:
        journal.put(seq, frame, event)  # type: ignore[arg-type]
    journal.flush()
    journal._drain()
    os.close(journal._fd)  # type: ignore[arg-type]
    return files(str(path))


def test_a_batch_that_crosses_the_size_limit_rotates_between_lines(tmp_path: Path) -> None:
    n = BATCH * 3 + 7
    names = drain(tmp_path / "events.jsonl", [record(i + 1, PAYLOAD) for i in range(n)], max_bytes=20_000)
    assert len(names) > 3
    for name in names:
        data = Path(name).read_bytes()
        assert len(data) <= 20_000 and data.endswith(b"\n")
    assert [e.seq for e in read(str(tmp_path / "events.jsonl"))] == list(range(1, n + 1))


def test_an_unencodable_payload_costs_only_its_own_payload(tmp_path: Path) -> None:
    odd = {"blob": msgspec.msgpack.Ext(5, b"\x00\x01")}  # msgpack can carry it, JSON cannot
    records = [record(i + 1, odd if i == BATCH // 2 else PAYLOAD) for i in range(BATCH + 3)]
    drain(tmp_path / "events.jsonl", records)
    events = list(read(str(tmp_path / "events.jsonl")))
    assert [e.seq for e in events] == list(range(1, BATCH + 4))
    assert "unencodable" in events[BATCH // 2].payload
    assert all(e.payload == PAYLOAD for i, e in enumerate(events) if i != BATCH // 2)
    assert os.path.getsize(tmp_path / "events.jsonl") > 0


def test_past_the_backlog_bound_events_are_dropped_counted_and_announced(tmp_path: Path) -> None:
    # The writer is not running (a stuck disk): the loop side refuses what passes the bound.
    journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, keep=1, backlog=BATCH + 10)
    heard: list[tuple[str, dict]] = []  # type: ignore[type-arg]
    journal.notify = lambda point, payload: heard.append((point, payload))
    journal._open()
    for seq, frame, event in [record(i + 1, PAYLOAD) for i in range(BATCH + 25)]:
        journal.put(seq, frame, event)  # type: ignore[arg-type]
    assert journal.dropped == 15 and journal.stats()["lost"] == 15
    journal.flush()
    journal._drain()  # the writer gets going again
    os.close(journal._fd)  # type: ignore[arg-type]
    assert [e.seq for e in read(str(tmp_path / "events.jsonl"))] == list(range(1, BATCH + 11))
    assert heard == [("hookd.journal.lost", {"count": 15, "reason": "backlog", "path": str(tmp_path / "events.jsonl")})]
    # Room again once the writer took the backlog.
    journal._open()
    journal.put(*record(BATCH + 26, PAYLOAD))  # type: ignore[arg-type]
    assert journal.dropped == 15


def test_the_backlog_bound_counts_bytes_too(tmp_path: Path) -> None:
    journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, keep=1, backlog_bytes=50_000)
    journal._open()
    big = {"text": "x" * 10_000}
    for seq, frame, event in [record(i + 1, big) for i in range(8)]:
        journal.put(seq, frame, event)  # type: ignore[arg-type]
    assert journal.dropped == 3  # five frames of ~10 KB fill 50 KB
    journal.flush()
    journal._drain()
    os.close(journal._fd)  # type: ignore[arg-type]
    assert [e.seq for e in read(str(tmp_path / "events.jsonl"))] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(
    ("bounds", "payload", "kept"),
    [({"backlog": BATCH + 10}, PAYLOAD, BATCH + 10), ({"backlog_bytes": 50_000}, {"text": "x" * 10_000}, 5)],
)
def test_a_pass_of_events_is_held_to_the_backlog_bound_as_each_event_is(
    tmp_path: Path, bounds: dict[str, int], payload: dict[str, str], kept: int
) -> None:
    # The bus hands the journal a pass of events at once; near the bound it keeps exactly
    # what it would have kept had they come one at a time, and drops and counts the rest.
    n = kept + 15
    passes: list[list[tuple[int, bytes, object]]] = [[record(i + 1, payload) for i in range(n)][k : k + 7] for k in range(0, n, 7)]
    journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, keep=1, **bounds)
    journal._open()
    for records in passes:
        frames = [encoded(Event(seq, 1.0, "emit", "tool.execute.after", "s1", None, payload)) for seq, _, _ in records]
        journal.put_all([event for _, event in frames], [frame for frame, _ in frames], sum(len(frame) for frame, _ in frames))
    assert journal.dropped == 15
    journal.flush()
    journal._drain()
    os.close(journal._fd)  # type: ignore[arg-type]
    assert [e.seq for e in read(str(tmp_path / "events.jsonl"))] == list(range(1, kept + 1))


class Spy:
    """The journal's JSON encoder, noting which thread called it."""

    def __init__(self) -> None:
        self.inner = msgspec.json.Encoder()
        self.threads: set[int] = set()

    def encode_lines(self, events: list) -> bytes:  # type: ignore[type-arg]
        self.threads.add(threading.get_ident())
        return self.inner.encode_lines(events)

    def encode(self, event: object) -> bytes:
        self.threads.add(threading.get_ident())
        return self.inner.encode(event)


def test_on_a_loop_events_are_encoded_there_and_the_thread_only_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "events.jsonl"
    spy = Spy()
    monkeypatch.setattr(journal_lines, "_json", spy)

    async def run() -> int:
        journal = Journal(str(path), 1 << 30, keep=1)
        journal.start()
        for i in range(BATCH * 2 + 5):  # two full batches, then a few the timer hands over
            journal.put(*record(i + 1, PAYLOAD))  # type: ignore[arg-type]
        deadline = time.monotonic() + 60
        while journal.written < BATCH * 2 + 5:
            assert time.monotonic() < deadline, "the journal never wrote the events"
            await asyncio.sleep(0.01)
        journal.close()
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert spy.threads == {loop_thread}
    assert [e.seq for e in read(str(path))] == list(range(1, BATCH * 2 + 6))


def test_a_lone_event_encoded_at_once_is_written_without_another_event_after_it(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"

    async def run() -> None:
        journal = Journal(str(path), 1 << 30, keep=1)
        journal.start()
        # Over CHUNK as a frame, so it is encoded at once, alone; under it as JSON lines (a float
        # is 9 bytes in msgpack, 4 here in JSON), so it is not handed over with its encoding.
        journal.put(*record(1, {"v": [0.5] * (CHUNK // 8)}))  # type: ignore[arg-type]
        deadline = time.monotonic() + 60
        while journal.written < 1:
            assert time.monotonic() < deadline, "the large event never reached the journal"
            await asyncio.sleep(0.01)
        journal.close()

    asyncio.run(run())
    assert [e.seq for e in read(str(path))] == [1]


def test_more_batches_than_one_write_takes_are_all_written_in_order(tmp_path: Path) -> None:
    # Each flush hands over a batch of one event; the writer writes batches together, never
    # more in one call than the system takes (Linux: 1,024), so none is lost or reordered.
    path = tmp_path / "events.jsonl"
    journal = Journal(str(path), 1 << 30, keep=5)
    journal._open()
    n = 2_500
    for i in range(n):
        journal.put(*record(i + 1, PAYLOAD))  # type: ignore[arg-type]
        journal.flush()
    assert len(journal.queue) == n
    journal._drain()
    os.close(journal._fd)  # type: ignore[arg-type]
    assert (journal.written, journal.lost) == (n, 0)
    assert [e.seq for e in read(str(path))] == list(range(1, n + 1))


def _resident_pages(path: Path) -> list[bool]:
    """Which of the file's pages are in the page cache (mincore(2) on a private map of it)."""
    libc = ctypes.CDLL(None, use_errno=True)
    size = path.stat().st_size
    page = mmap.PAGESIZE
    with open(path, "rb") as f, mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY) as mm:
        vec = (ctypes.c_ubyte * ((size + page - 1) // page))()
        addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))
        assert libc.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec) == 0, ctypes.get_errno()
    return [bool(b & 1) for b in vec]


def _filesystem(path: Path) -> str:
    """The type of the filesystem ``path`` is on, found by its device in /proc/self/mountinfo."""
    dev = os.stat(path).st_dev
    want = f"{os.major(dev)}:{os.minor(dev)}"
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        if fields[2] == want:
            return fields[fields.index("-") + 1]
    return "unknown"


def _cached_journal(tmp_path: Path) -> tuple[Journal, bytes]:
    fs = _filesystem(tmp_path)
    if fs in ("tmpfs", "ramfs"):
        pytest.skip(f"{tmp_path} is on {fs}: its pages are the file itself, never let go")
    probe = tmp_path / "probe"
    probe.write_bytes(b"x" * mmap.PAGESIZE)
    if not all(_resident_pages(probe)):
        pytest.skip(f"{tmp_path} is on {fs}, which does not keep what is written in the page cache")
    journal = Journal(str(tmp_path / "events.jsonl"), 1 << 30, keep=5)
    journal._open()
    line = b'{"seq":1,"payload":"' + b"x" * 233 + b'"}\n'  # 256 bytes: a chunk of them is exactly CHUNK
    return journal, line * (CHUNK // len(line))


def test_the_pages_behind_the_newest_chunk_are_let_go_once_on_disk(tmp_path: Path) -> None:
    journal, blob = _cached_journal(tmp_path)
    for i in range(6):
        journal._write([blob], [i])
        os.fsync(journal._fd)  # type: ignore[arg-type]  # on disk: the next write lets its pages go
    os.close(journal._fd)  # type: ignore[arg-type]
    resident = _resident_pages(tmp_path / "events.jsonl")
    newest = CHUNK // mmap.PAGESIZE
    assert not any(resident[:-newest]), f"{sum(resident[:-newest])} pages behind the newest chunk are still cached"
    assert all(resident[-newest:]), "the newest chunk left the page cache"


def test_a_rotated_file_is_on_disk_and_out_of_the_page_cache(tmp_path: Path) -> None:
    journal, blob = _cached_journal(tmp_path)
    journal._write([blob], [1])
    journal._rotate()
    os.close(journal._fd)  # type: ignore[arg-type]
    rotated = tmp_path / "events.jsonl.1"
    assert rotated.stat().st_size == len(blob)
    assert not any(_resident_pages(rotated)), "the rotated file's pages are still cached"
