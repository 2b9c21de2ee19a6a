"""The dashboard's past from the journal: the newest events, read from the files' ends, across
rotated files, whatever the files hold (torn lines, garbage, an event in two files)."""

from __future__ import annotations

import time
from pathlib import Path

import msgspec
from hookd_client.messages import Event
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.dashboard import past

_line = msgspec.json.Encoder()


def line(seq: int, **payload: object) -> bytes:
    return _line.encode(Event(seq, time.time(), "emit", "tool.execute.before", "s1", payload=dict(payload))) + b"\n"


def files(tmp_path: Path, *contents: bytes) -> str:
    """Journal files, oldest first: the last is the current file, the others rotated (.N ... .1)."""
    path = tmp_path / "events.jsonl"
    for age, content in enumerate(reversed(contents)):
        (path if age == 0 else Path(f"{path}.{age}")).write_bytes(content)
    return str(path)


def test_the_newest_events_come_from_every_rotated_file_oldest_first(tmp_path: Path) -> None:
    path = files(tmp_path, b"".join(line(s) for s in range(1, 5)), b"".join(line(s) for s in range(5, 9)), line(9) + line(10))
    events, last = past.newest(path, 1, 7)
    assert [e.seq for e in events] == [4, 5, 6, 7, 8, 9, 10] and last == 10
    events, last = past.newest(path, 8, 500)
    assert [e.seq for e in events] == [8, 9, 10] and last == 10
    events, last = past.newest(path, 1, 500)
    assert [e.seq for e in events] == list(range(1, 11))


def test_torn_garbage_and_repeated_lines_are_passed_over(tmp_path: Path) -> None:
    # A rotation while the files were written can leave an event in two files; a crash, a torn end.
    older = line(1) + b"not json\n" + line(2) + line(3)
    current = line(3) + b'{"type":"event","seq":' + b"\n" + line(4, big="x" * 100_000) + b'{"type":"event","seq":5,"ti'
    events, last = past.newest(files(tmp_path, older, current), 1, 500)
    assert [e.seq for e in events] == [1, 2, 3, 4] and last == 4
    assert events[-1].payload["big"] == "x" * 100_000


def test_no_journal_is_no_past(tmp_path: Path) -> None:
    assert past.newest(str(tmp_path / "events.jsonl"), 1, 500) == ([], None)
    assert past.newest(files(tmp_path, b""), 1, 500) == ([], None)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.integers(1, 60).map(lambda seq: ("event", seq)),
            st.binary(max_size=80).map(lambda junk: ("junk", junk)),
        ),
        max_size=60,
    ),
    st.integers(1, 3),
    st.integers(0, 70),
    st.integers(1, 30),
    st.booleans(),
)
def test_whatever_the_files_hold_the_past_is_unique_ordered_and_bounded(tmp_path_factory, items, parts, since, count, torn):  # type: ignore[no-untyped-def]
    tmp_path = tmp_path_factory.mktemp("journal")
    lines = [line(value) if kind == "event" else value.replace(b"\n", b" ") + b"\n" for kind, value in items]
    cut = max(1, len(lines) // parts)
    contents = [b"".join(lines[i : i + cut]) for i in range(0, len(lines), cut)] or [b""]
    if torn:
        contents[-1] += b'{"type":"event","seq":99'
    events, last = past.newest(files(tmp_path, *contents), since, count)
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs)) and len(seqs) <= count and all(s >= since for s in seqs)
    written = [value for kind, value in items if kind == "event"]
    assert last == (written[-1] if written else None)
    # Read newest first, an event older than one already taken is the next older one; so what is
    # taken is every event of its seq range that no newer line hides, newest first.
    expected: list[int] = []
    for seq in reversed(written):
        if seq < since or len(expected) == count:
            break
        if not expected or seq < expected[-1]:
            expected.append(seq)
    assert seqs == expected[::-1]
