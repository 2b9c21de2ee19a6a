"""Pure parts of the event stream: since parsing, filters, the tail format, the journal files."""

from __future__ import annotations

import datetime
import json
import time

import pytest
from hookd_client.framing import HEADER
from hookd_client.messages import Event, Gap, HookRef
from hookd_client.stream import parse_duration, parse_since
from hypothesis import given
from hypothesis import strategies as st

from hookd.cli import tailfmt
from hookd.events import journal
from hookd.events.bus import Bus, Filter
from hookd.events.eventcodec import encoded
from hookd.events.history import RECORD_OVERHEAD


def rec(seq: int, point: str = "tool.execute.after", session: str | None = "s1", project: str | None = None, when: float = 0.0):  # type: ignore[no-untyped-def]
    """A history ring entry: (seq, time, point, session, project, frame)."""
    when = when or time.time()
    return (seq, when, point, session, project, encoded(Event(seq, when, "emit", point, session, project, {"i": seq}))[0])


def entry(seq: int, when: float = 0.0) -> tuple[int, bytes]:
    """What the bus queues for the journal: (seq, frame)."""
    return seq, rec(seq, when=when)[5]


# ------------------------------------------------------------------ since


def test_since_forms():
    assert parse_since(None) == (None, None)
    assert parse_since(42) == (42, None)
    assert parse_since("42") == (42, None)
    assert parse_since("1h30m") == (None, 5400.0)
    assert parse_since(datetime.timedelta(minutes=2)) == (None, 120.0)
    assert parse_since(1.5) == (None, 1.5)
    for bad in ("", "1x", "h", "5m garbage", "-5m"):
        with pytest.raises(ValueError):
            parse_since(bad)
    with pytest.raises(TypeError):
        parse_since(True)


@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(["ms", "s", "m", "h", "d", "w"])), min_size=1, max_size=4))
def test_durations_add_up(parts):
    text = "".join(f"{n}{unit}" for n, unit in parts)
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
    assert parse_duration(text) == pytest.approx(sum(n * scale[u] for n, u in parts))


@given(st.text(max_size=20))
def test_any_text_is_a_duration_or_a_clear_error(text):
    try:
        assert parse_duration(text) >= 0
    except ValueError as exc:
        assert "duration" in str(exc)


# ----------------------------------------------------------------- filter


def test_filter_globs_sessions_projects():
    everything = Filter()
    assert everything(rec(1)) and everything(rec(2, "hookd.hook.error", None))
    tools = Filter(["tool.*", "custom.a?"])
    assert tools(rec(1, "tool.execute.after")) and tools(rec(1, "custom.ab"))
    assert not tools(rec(1, "llm.request.before")) and not tools(rec(1, "custom.abc"))
    s1 = Filter(sessions=["s1"])
    assert s1(rec(1)) and not s1(rec(1, session="s2")) and not s1(rec(1, session=None))
    proj = Filter(["tool.*"], projects=["/repo/a/"])
    assert proj(rec(1, project="/repo/a")) and not proj(rec(1, project="/repo/b"))
    assert not proj(rec(1, "llm.request.before", project="/repo/a"))


@given(
    st.lists(st.text(alphabet="ab.*?[]!", min_size=1, max_size=6), min_size=1, max_size=3),
    st.text(alphabet="ab.Ab", max_size=8),
)
def test_point_globs_mean_what_fnmatch_means(globs, point):
    import fnmatch

    assert Filter(globs)(rec(1, point)) == any(fnmatch.fnmatchcase(point, g) for g in globs)


def ring_cost(bus: Bus) -> int:
    return sum(len(r[5]) + HEADER.size + RECORD_OVERHEAD for r in bus.ring)  # the ring gives back bodies


def test_history_is_bounded_by_count_and_by_bytes():
    bus = Bus(history=5, history_bytes=10_000)
    for i in range(20):
        bus.publish("emit", "custom.x", None, None, {"i": i})
    assert [r[0] for r in bus.ring] == [16, 17, 18, 19, 20] and bus.ring.bytes == ring_cost(bus)
    for i in range(3):
        bus.publish("emit", "custom.big", None, None, {"i": i, "blob": "x" * 4000})
    assert [r[2] for r in bus.ring] == ["custom.big", "custom.big"] and bus.ring.bytes == ring_cost(bus) <= 10_000
    bus.publish("emit", "custom.huge", None, None, {"blob": "x" * 50_000})
    assert [r[2] for r in bus.ring] == ["custom.huge"]  # the newest event always stays


# ------------------------------------------------------------ tail format

TODAY = datetime.date.today()


def test_human_line_for_a_decision():
    ev = Event(
        7,
        time.time(),
        "decide",
        "tool.approval.pre",
        "s1",
        payload={"toolName": "execute_command", "args": {"command": "rm -rf /"}},
        decision="deny",
        reason="no",
        decided_by=HookRef("guard", "session", "session:s1"),
        duration=12.5,
    )
    plain = tailfmt.line(ev, colour=False, today=TODAY)
    assert "tool.approval.pre" in plain and "deny (no) by guard 12.5ms execute_command rm -rf /" in plain
    assert "\x1b" not in plain
    assert "\x1b[31mdeny" in tailfmt.line(ev, colour=True, today=TODAY)


def test_human_line_for_internal_and_plain_events():
    ev = Event(1, time.time(), "internal", "hookd.hook.timeout", None, payload={"hook": "slow", "message": "no answer"})
    text = tailfmt.line(ev, today=TODAY)
    assert "hookd.hook.timeout" in text and "hook=slow" in text and " - " in text
    other = Event(2, time.time(), "emit", "agent.turn.end", "s9", payload={"turn": 3, "why": "done"})
    assert "turn=3 why=done" in tailfmt.line(other, today=TODAY)


def test_human_time_has_a_date_only_when_not_today():
    ts = datetime.datetime(2020, 1, 2, 3, 4, 5, 678000).timestamp()
    assert tailfmt.when(ts, datetime.date(2020, 1, 2)) == "03:04:05.678"
    assert tailfmt.when(ts, datetime.date(2020, 1, 3)) == "2020-01-02 03:04:05.678"


def test_gap_line_says_how_many():
    assert "missed 12 events (seq 5..30)" in tailfmt.gap_line(Gap(12, 5, 30))
    assert "no longer in the daemon's memory" in tailfmt.gap_line(Gap(4, 1, 4, "history"))


# ---------------------------------------------------------------- journal


def test_journal_writes_rotates_and_reads_back_in_order(tmp_path):
    path = str(tmp_path / "j" / "events.jsonl")
    j = journal.Journal(path, max_bytes=2000, keep=2)
    j.start()
    for seq in range(1, 201):
        j.put(*entry(seq, when=1000.0 + seq))
    j.close()
    names = journal.files(path)
    assert [n.rsplit("/", 1)[1] for n in names] == ["events.jsonl.2", "events.jsonl.1", "events.jsonl"]
    seqs = [e.seq for e in journal.read(path)]
    assert seqs == list(range(seqs[0], 201)) and seqs[0] > 1
    assert journal.last_event(path).seq == 200  # type: ignore[union-attr]
    assert [e.seq for e in journal.read(path, since=1000.0 + 195)] == [195, 196, 197, 198, 199, 200]
    assert (tmp_path / "j").stat().st_mode & 0o077 == 0


def test_journal_skips_a_torn_last_line(tmp_path):
    path = tmp_path / "events.jsonl"
    good = json.dumps({"type": "event", "seq": 1, "time": 1.0, "kind": "emit", "point": "p"})
    path.write_text(good + "\n" + "{not json\n" + good.replace('"seq": 1', '"seq": 2') + "\n" + '{"type": "ev')
    assert [e.seq for e in journal.read(str(path))] == [1, 2]
    assert journal.last_event(str(path)).seq == 2  # type: ignore[union-attr]
    assert journal.last_event(str(tmp_path / "missing.jsonl")) is None
