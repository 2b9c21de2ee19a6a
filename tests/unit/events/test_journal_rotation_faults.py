"""Two faults in a row around a rotation: the journal neither drops older files for nothing nor
fuses a line onto a torn one. The writer is driven on the test's thread, so each fault lands
exactly where it is meant to; real files in a temp dir."""

from __future__ import annotations

import errno
import json
import os
import time
from pathlib import Path
from typing import Any

from hookd_client.messages import Event

import hookd.events.journal as journal_module
from hookd.events import journal_files
from hookd.events.journal import Journal
from hookd.events.journal_lines import lines


def batch(first: int, count: int) -> tuple[bytes, list[int], int]:
    seqs = list(range(first, first + count))
    events = [Event(seq, time.time(), "emit", "custom.x", None, None, {"n": seq, "pad": "x" * 60}) for seq in seqs]
    return lines(events), seqs, 0


def write(journal: Journal, first: int, count: int) -> None:
    blob, seqs, _ = batch(first, count)
    journal._write([blob], seqs)


def every_line_is_whole(path: Path) -> bool:
    for name in journal_files.files(str(path)):
        for raw in Path(name).read_bytes().splitlines():
            json.loads(raw)  # raises on a fused or torn line
    return True


def test_a_rotation_whose_new_file_cannot_be_opened_drops_no_older_file(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "events.jsonl"
    journal = Journal(str(path), max_bytes=12_000, keep=4)
    journal._open()
    real_open = os.open
    refusals = {"left": 3}

    def opening(name: Any, flags: int, mode: int = 0o777, **kw: Any) -> int:
        # After the first rotation moved the file away, the new one cannot be made three times (no inodes).
        if name == str(path) and Path(f"{path}.1").exists() and refusals["left"]:
            refusals["left"] -= 1
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(name, flags, mode, **kw)

    monkeypatch.setattr(os, "open", opening)
    seq = 1
    for _ in range(15):  # about 3 rotations' worth at this size (~2.4 KB a batch), keep=4: nothing needs to go
        journal.queue.append(batch(seq, 10))
        seq += 10
        journal._drain()
    on_disk = [e.seq for e in journal_files.read(str(path))]
    assert refusals["left"] == 0 and journal.lost > 0
    assert journal.written == len(on_disk) and journal.written + journal.lost == seq - 1
    assert len(journal_files.files(str(path))) <= 5 and every_line_is_whole(path)


def test_a_torn_end_left_before_a_failed_rotation_is_cut_when_the_file_is_opened_again(tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "events.jsonl"
    journal = Journal(str(path), max_bytes=1 << 30, keep=3)
    journal._open()
    write(journal, 1, 5)
    real_write = os.write

    def short_writev(fd: int, parts: Any) -> int:  # a full disk: part of a line stored ...
        return real_write(fd, b"".join(parts)[:50])

    def full(fd: int, data: Any) -> int:  # ... and the rest refused
        raise OSError(errno.ENOSPC, "No space left on device")

    def failing_ftruncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    def failing_shift(path: str, keep: int) -> None:
        raise OSError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "writev", short_writev)
    monkeypatch.setattr(os, "write", full)
    monkeypatch.setattr(os, "ftruncate", failing_ftruncate)
    write(journal, 6, 5)  # torn, and the cut fails too
    assert journal._dirty
    monkeypatch.setattr(journal_module, "shift", failing_shift)
    journal._rotate()  # fails before it moves the file: the same file is opened again later
    assert journal._fd is None and journal._dirty
    monkeypatch.undo()
    write(journal, 11, 5)
    on_disk = [e.seq for e in journal_files.read(str(path))]
    assert on_disk == [1, 2, 3, 4, 5, 11, 12, 13, 14, 15] and journal.written == 10 and journal.lost == 5
    assert every_line_is_whole(path)
