"""Event seqs reserved on disk before they are handed out, so none is ever handed out twice.

The journal is written off the event loop, in batches, so events reach
subscribers before they reach the disk; a daemon killed in between leaves seqs
that someone saw but the journal never got. Continuing from the journal's last
line would hand them out again. Instead the bus records ``reserved``, the
highest seq it may hand out, in ``<journal>.seq`` (written atomically, fsynced)
before handing out any seq beyond it, a block at a time; the next daemon starts
after the larger of the journal's last seq and the reservation. A clean stop
records the last seq actually used (``clean``), so the numbering stays dense
across ordinary restarts and only a crash skips the rest of its block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import structlog

from hookd.config import statefiles
from hookd.events import journal_files

log = structlog.get_logger("hookd.bus")

BLOCK = 65_536  # seqs reserved per write: one small fsynced write per this many events
RETRY_AFTER = 1_024  # events between attempts when a reservation cannot be written


@dataclass(slots=True)
class Previous:
    reserved: int = 0  # highest seq the last daemon could have handed out
    clean: bool = True  # it stopped cleanly and ``reserved`` is its last seq
    lost: int | None = None  # it stopped while its journal failed: ``reserved`` is its last seq, and this many were lost
    error: str | None = None  # the file could not be read


class SeqBlocks:
    def __init__(self, path: str, block: int = BLOCK) -> None:
        self.path = path
        self.block = block
        self.retry_after = RETRY_AFTER
        self.reserved = 0

    def load(self) -> Previous:
        try:
            data = statefiles.read_json(self.path)
        except statefiles.StateFileError as exc:
            return Previous(error=str(exc))
        if data is None:
            return Previous()
        reserved = data.get("reserved")
        if not isinstance(reserved, int) or isinstance(reserved, bool) or reserved < 0:
            return Previous(error=f"{self.path}: 'reserved' is not a seq")
        self.reserved = reserved
        lost = data.get("lost")
        return Previous(reserved, data.get("clean") is True, lost if isinstance(lost, int) and not isinstance(lost, bool) else None)

    def reserve_from(self, seq: int) -> None:
        """Make every seq up to ``seq + block - 1`` ours, durably. OSError when it cannot be written."""
        upto = seq + self.block - 1
        statefiles.write_json(self.path, {"reserved": upto, "clean": False})
        self.reserved = upto

    def stopped_at(self, seq: int, clean: bool = True, lost: int | None = None) -> None:
        """The daemon stops after ``seq``; not ``clean`` when the journal's tail was lost (the next
        daemon then reports the range again, in the journal: at the stop it could not be written),
        with ``lost``, how many of its last seqs the journal lost, when that is known."""
        record: dict[str, Any] = {"reserved": seq, "clean": clean}
        if lost is not None:
            record["lost"] = lost
        statefiles.write_json(self.path, record)
        self.reserved = seq


@dataclass(slots=True)
class Numbering:
    """Where a new daemon's seqs start, the reservation it keeps, and what to announce once it runs."""

    first_seq: int = 1
    blocks: SeqBlocks | None = None
    notes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def continue_numbering(path: str) -> Numbering:
    """Seqs for a daemon whose journal is at ``path``: after the journal's last event and after
    every seq the last daemon may have handed out; a range it numbered but never wrote is announced."""
    try:
        last = journal_files.last_event(path)
    except OSError:
        last = None
    journaled = last.seq if last is not None else 0
    blocks = SeqBlocks(f"{path}.seq")
    previous = blocks.load()
    notes: list[tuple[str, dict[str, Any]]] = []
    if previous.error:
        log.error("seq reservation unreadable; continuing after the journal", path=blocks.path, error=previous.error)
        notes.append(("hookd.journal.error", {"path": blocks.path, "error": previous.error, "what": "seq reservation"}))
    if previous.reserved > journaled and not previous.clean and previous.lost is not None:
        # The last daemon stopped while its journal failed, and recorded how many of its last
        # seqs were lost (its own report of them could only reach its subscribers).
        loss = {"count": previous.lost, "from": journaled + 1, "to": previous.reserved, "reason": "write failed", "path": path}
        notes.append(("hookd.journal.lost", loss))
        log.warning("the last daemon stopped while its journal failed; its last events are not in the journal", **loss)
    elif previous.reserved > journaled and not previous.clean:
        # The last daemon stopped uncleanly: what it numbered past the journal's end was never
        # written. Some of these seqs were never handed out at all; none will be again.
        notes.append(("hookd.journal.lost", {"from": journaled + 1, "to": previous.reserved, "reason": "unclean stop", "path": path}))
        log.warning("events numbered by the last daemon are not in the journal", first=journaled + 1, last=previous.reserved)
    return Numbering(max(journaled, previous.reserved) + 1, blocks, notes)
