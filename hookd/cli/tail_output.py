"""What `hookd tail` keeps and writes: the filter applied on this side, and the printer of events,
gaps and markers. The local tail and the team's tail (hookd/cli/tail_team.py) both use them."""

from __future__ import annotations

import fnmatch
import os
import sys
from typing import Any


class Matcher:
    """The subscription filter, applied to journal lines on this side."""

    def __init__(self, points: list[str], sessions: list[str], projects: list[str]) -> None:
        self.points = points
        self.sessions = set(sessions)
        self.projects = {os.path.normpath(p) for p in projects}

    def __call__(self, ev: Any) -> bool:
        if self.points and not any(fnmatch.fnmatchcase(ev.point, g) for g in self.points):
            return False
        if self.sessions and ev.session not in self.sessions:
            return False
        return not self.projects or ev.project in self.projects


class Printer:
    """Writes events, gaps and markers; remembers the newest seq written, where a reconnect resumes."""

    def __init__(self, as_json: bool, colour: bool, flush: bool, fit: bool = False) -> None:
        import msgspec

        from hookd.cli import tailfmt
        from hookd.core import termsafe

        self.fmt = tailfmt
        self.termsafe = termsafe
        # tailfmt cleans every field taken from the event; the stream filter would also escape our colours.
        self.out = termsafe.unfiltered(sys.stdout)
        self.as_json = as_json
        self.colour = colour
        self.flush = flush
        self.fit = fit  # cut lines to the terminal's width (asked again per line: the window may be resized)
        self.encode = msgspec.json.Encoder().encode
        self.last_seq: int | None = None

    def width(self) -> int | None:
        import shutil

        return max(1, shutil.get_terminal_size().columns) if self.fit else None

    def __call__(self, item: Any) -> None:
        from hookd_client.messages import Gap

        self.last_seq = max(self.last_seq or 0, item.last if isinstance(item, Gap) else item.seq)
        if self.as_json:
            text = self.termsafe.json_text(self.encode(item).decode())
        elif isinstance(item, Gap):
            text = self.fmt.gap_line(item, self.colour, self.width())
        else:
            text = self.fmt.line(item, self.colour, width=self.width())
        self._write(text)

    def marker(self, text: str, after: int | None) -> None:
        """A line about the stream itself, as journalctl's ``-- Boot ... --``; in JSON, {"type": "marker"}."""
        import json

        if self.as_json:
            self._write(json.dumps({"type": "marker", "text": text, "after_seq": after}))
        else:
            self._write(self.fmt.marker_line(text, self.colour, self.width()))

    def _write(self, text: str) -> None:
        self.out.write(text + "\n")
        if self.flush:
            self.out.flush()
