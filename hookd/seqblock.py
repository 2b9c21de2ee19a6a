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

from dataclasses import dataclass

from . import statefiles

BLOCK = 65_536  # seqs reserved per write: one small fsynced write per this many events
RETRY_AFTER = 1_024  # events between attempts when a reservation cannot be written


@dataclass(slots=True)
class Previous:
    reserved: int = 0  # highest seq the last daemon could have handed out
    clean: bool = True  # it stopped cleanly and ``reserved`` is its last seq
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
        return Previous(reserved, data.get("clean") is True)

    def reserve_from(self, seq: int) -> None:
        """Make every seq up to ``seq + block - 1`` ours, durably. OSError when it cannot be written."""
        upto = seq + self.block - 1
        statefiles.write_json(self.path, {"reserved": upto, "clean": False})
        self.reserved = upto

    def stopped_at(self, seq: int, clean: bool = True) -> None:
        """The daemon stops after ``seq``; not ``clean`` when the journal's tail was lost (the next
        daemon then reports the range again, since nobody could be told before the stop)."""
        statefiles.write_json(self.path, {"reserved": seq, "clean": clean})
        self.reserved = seq
