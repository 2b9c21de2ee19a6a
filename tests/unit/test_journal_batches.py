"""The journal writer encodes events a batch at a time; rotation and odd payloads stay exact."""

from __future__ import annotations

import os
import time
from pathlib import Path

import msgspec

from hookd.eventcodec import encoded
from hookd.journal import BATCH, Journal, files, read

PAYLOAD = {"toolName": "read_file", "args": {"path": "/tmp/project/README.md"}}


def record(seq: int, payload: dict) -> tuple[int, bytes, object]:  # type: ignore[type-arg]
    frame, event = encoded(seq, time.time(), "emit", "tool.execute.after", "s1", None, payload)
    # The bus hands over the struct while little is queued; the writer decodes the frame otherwise.
    return seq, frame, event if seq % 2 else None


def drain(path: Path, records: list[tuple[int, bytes, object]], max_bytes: int = 1 << 30) -> list[str]:
    journal = Journal(str(path), max_bytes, keep=50)
    journal._open()
    journal.queue.extend(records)  # type: ignore[arg-type]
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
