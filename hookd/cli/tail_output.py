"""What `hookd tail` keeps and writes: the filter applied on this side, and the printer of events,
gaps and markers. The local tail and the team's tail (hookd/cli/tail_team.py) both use them."""

from __future__ import annotations

import fnmatch
import os
import sys
from typing import Any

DECISIONS = ("allow", "deny", "ask", "continue", "none")  # `none`: a decide that no hook decided


def parse_decisions(values: list[str]) -> frozenset[str]:
    """--decision, each given once or as a comma list (``deny,ask``); ValueError naming a word that is not one."""
    chosen = set()
    for value in values:
        for word in value.split(","):
            word = word.strip().lower()
            if word not in DECISIONS:
                raise ValueError(f"--decision: {word!r} is not one of {', '.join(DECISIONS)}")
            chosen.add(word)
    return frozenset(chosen)


class Until:
    """The end of --until: a seq number (that event is the last shown) or a Unix time; neither: no end."""

    def __init__(self, seq: int | None = None, time: float | None = None) -> None:
        self.seq = seq
        self.time = time

    def __bool__(self) -> bool:
        return self.seq is not None or self.time is not None

    def after(self, ev: Any) -> bool:
        """Whether ``ev`` comes after the end (so it is not shown)."""
        if self.seq is not None and ev.seq > self.seq:
            return True
        return self.time is not None and ev.time > self.time


def parse_until(until: str | None, since: str | None, now: float) -> Until:
    """--until in --since's syntax (a duration ago, or a seq number); ValueError when it is not one, or
    when it ends before --since starts (both seq numbers, or both durations)."""
    from hookd_client.stream import parse_since

    try:
        seq, age = parse_since(until)
    except ValueError as exc:
        raise ValueError(f"--until: {exc}") from None
    with_since = parse_since(since)
    if seq is not None and with_since[0] is not None and seq < with_since[0]:
        raise ValueError(f"--until {until} ends before --since {since} starts")
    if age is not None and with_since[1] is not None and age > with_since[1]:
        raise ValueError(f"--until {until} ends before --since {since} starts")
    return Until(seq, now - age if age is not None else None)


class Matcher:
    """The subscription filter (points, sessions, projects), applied to journal lines on this side;
    and what no subscription filters (the decision, --until), applied on this side to every event."""

    def __init__(
        self,
        points: list[str],
        sessions: list[str],
        projects: list[str],
        decisions: frozenset[str] = frozenset(),
        until: Until | None = None,
    ) -> None:
        self.points = points
        self.sessions = set(sessions)
        self.projects = {os.path.normpath(p) for p in projects}
        self.decisions = decisions
        self.until = until or Until()

    def __call__(self, ev: Any) -> bool:
        if self.points and not any(fnmatch.fnmatchcase(ev.point, g) for g in self.points):
            return False
        if self.sessions and ev.session not in self.sessions:
            return False
        return (not self.projects or ev.project in self.projects) and self.kept(ev)

    def kept(self, ev: Any) -> bool:
        """The filters of this side alone: the daemon's subscription already applied the others."""
        if self.decisions and (ev.kind != "decide" or (ev.decision or "none") not in self.decisions):
            return False
        return not self.until.after(ev)


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
