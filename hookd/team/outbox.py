"""The journal as the exporter's outbox: its lines, read forward from a seq.

The journal writer appends complete JSON lines and rotates ``events.jsonl`` to
``events.jsonl.1`` (and on) by size. The reader keeps its file open and its
offset, so a rotation never makes it read a line twice or skip one: at the end
of its file it checks whether the journal moved on to a new file, finishes the
old one and then picks the next file holding newer seqs. A line not yet ended
by a newline is being written: the reader stops before it and reads it next
time. Events that rotated out of the journal before they were read are
counted as a gap, never silently skipped.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import IO

import msgspec

from hookd.events import journal_files


class _Head(msgspec.Struct):
    seq: int
    point: str


_head = msgspec.json.Decoder(_Head).decode


@dataclass(slots=True)
class Line:
    seq: int
    point: str
    data: bytes  # the event's JSON, as the journal holds it (no newline)


class Outbox:
    def __init__(self, path: str, after: int) -> None:
        self.path = path
        self.after = after  # the newest seq handed out
        self.missed = 0  # seqs rotated away before they were read (at most: seqs may have gaps of their own)
        self.gaps: list[tuple[int, int]] = []  # their ranges, until the exporter reports them
        self._f: IO[bytes] | None = None
        self._ino: int | None = None

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def _newest(self, name: str) -> int | None:
        with contextlib.suppress(OSError):
            for line in journal_files.lines_backward(name):
                with contextlib.suppress(msgspec.DecodeError):
                    return _head(line).seq
        return None

    def _first(self, name: str) -> int | None:
        with contextlib.suppress(OSError), open(name, "rb") as f:
            for line in f:
                with contextlib.suppress(msgspec.DecodeError):
                    return _head(line).seq
        return None

    def _open_next(self) -> bool:
        """Open the oldest journal file that holds a seq past ``after``."""
        for i, name in enumerate(journal_files.files(self.path)):
            newest = self._newest(name)
            if newest is None or newest <= self.after:
                continue
            if i == 0 and self.after:
                # The oldest file left starts past what was read: the files between rotated away unread.
                first = self._first(name)
                if first is not None and first > self.after + 1:
                    self.missed += first - self.after - 1
                    self.gaps.append((self.after + 1, first - 1))
            try:
                f = open(name, "rb")  # noqa: SIM115 - held across reads, closed by close()
            except OSError:
                continue
            self._f = f
            self._ino = os.fstat(f.fileno()).st_ino
            return True
        return False

    def _rotated(self) -> bool:
        try:
            return os.stat(self.path).st_ino != self._ino
        except OSError:
            return True

    def read(self, limit: int) -> list[Line]:
        """Up to ``limit`` lines with seqs past ``after``, oldest first."""
        out: list[Line] = []
        while len(out) < limit:
            if self._f is None and not self._open_next():
                break
            f = self._f
            assert f is not None
            rotated = self._rotated()  # checked before reading: what the old file holds now is all it will hold
            while len(out) < limit:
                start = f.tell()
                raw = f.readline()
                if not raw:
                    break
                if not raw.endswith(b"\n"):
                    f.seek(start)  # still being written
                    break
                line = raw[:-1]
                try:
                    head = _head(line)
                except msgspec.DecodeError:
                    continue  # a line torn by a crash and cut back is never complete; a malformed one is skipped
                if head.seq <= self.after:
                    continue
                self.after = head.seq
                out.append(Line(head.seq, head.point, line))
            else:
                break  # the limit was reached
            if not rotated:
                break  # the end of the current file: wait for more
            self.close()  # the old file is finished; the next one holds newer seqs
        return out
