"""The bus a daemon runs, from its Settings: with its journal, numbered after every seq a
previous daemon may have handed out (seqblock.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hookd.events import journal_files
from hookd.events.bus import Bus
from hookd.events.journal import Journal
from hookd.events.seqblock import Numbering, continue_numbering


def make_bus(settings: Any, observe: Callable[[str, dict[str, Any], str | None, str | None], None] | None = None) -> Bus:
    """The bus a daemon with these Settings runs, journal included; seq continues after the journal
    and after every seq a previous daemon may have handed out (seqblock.py)."""
    journal = None
    numbering = Numbering()
    if settings.journal:
        path = settings.journal_path or journal_files.default_path()
        journal = Journal(path, settings.journal_max_bytes, settings.journal_keep)
        numbering = continue_numbering(path)
    return Bus(
        history=settings.history,
        history_bytes=settings.history_bytes,
        queue=settings.subscriber_queue,
        queue_bytes=settings.subscriber_queue_bytes,
        journal=journal,
        first_seq=numbering.first_seq,
        seq_blocks=numbering.blocks,
        startup_notes=numbering.notes,
        observe=observe,
    )
