"""The page's past across daemon restarts: the journal's newest events, then the daemon's.

A daemon holds in memory only what it published since it started; the journal on disk holds what
came before (hookd/events/journal.py). As ``hookd tail`` does, the dashboard takes the journal up to
its newest line and has the daemon replay what follows that line, so no event shows twice and
none goes missing between the two. The page wants only the newest events, so the journal's files
are read from their ends (journal_files.lines_backward), never from their starts.
"""

from __future__ import annotations

import msgspec
from hookd_client.messages import Event

from hookd.events import journal_files

_decode = msgspec.json.Decoder(Event).decode


def newest(path: str, since: int, count: int) -> tuple[list[Event], int | None]:
    """Up to ``count`` (at least one) of the journal's newest events whose seq is at least ``since``, oldest first,
    and the seq of the journal's newest event (None: the journal holds none).

    Torn and malformed lines are skipped, as every reader of the journal skips them; a file that
    goes away while it is read (a rotation) is passed over, and an event read twice is kept once."""
    found: list[Event] = []
    last: int | None = None
    below: int | None = None  # the oldest seq taken so far: read newest first, each next one is older
    for name in reversed(journal_files.files(path)):
        try:
            for line in journal_files.lines_backward(name):
                try:
                    event = _decode(line)
                except msgspec.DecodeError:
                    continue
                if last is None:
                    last = event.seq
                if below is not None and event.seq >= below:
                    continue  # read already: the files rotated under this read
                if event.seq < since:
                    return found[::-1], last
                below = event.seq
                found.append(event)
                if len(found) >= count:
                    return found[::-1], last
        except OSError:
            continue
    return found[::-1], last
