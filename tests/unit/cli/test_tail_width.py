"""`hookd tail` lines fitted to a terminal's width, with hostile payloads: property tests."""

from __future__ import annotations

import itertools
import re

import pytest
from hookd_client.messages import Event, HookRef
from hypothesis import given, settings
from hypothesis import strategies as st
from wcwidth import wcswidth

from hookd.cli import tailfmt

_OURS = re.compile("|".join(re.escape(c) for c in sorted({*tailfmt.COLOURS, tailfmt.RESET}, key=len, reverse=True)))
# Hostile text: controls and escape sequences, wide (CJK, emoji) and zero-width (combining, ZWJ) characters.
_PIECES = ["\x1b", "\x1b[31m", "\x1b]52;c;aGk=\x07", "\x9b", "\x07", "\n", "\t", "中", "🎉", "\u0301", "\u200d", "\u202e", "…", " "]
_TEXT = st.lists(st.one_of(st.characters(), st.sampled_from(_PIECES)), max_size=60).map("".join)
_VALUE = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), _TEXT), lambda v: st.lists(v, max_size=3), max_leaves=8)


def _event(kind: str, point: str, session: str | None, payload: dict, decision: str | None, reason: str | None, by: str) -> Event:
    return Event(
        seq=1,
        time=0.0,
        kind=kind,  # type: ignore[arg-type]
        point=point,
        session=session,
        payload=payload,
        decision=decision if kind == "decide" else None,  # type: ignore[arg-type]
        reason=reason if kind == "decide" else None,
        decided_by=HookRef(by, "global", by) if kind == "decide" and by else None,
        errors=2 if kind == "decide" else 0,
    )


_EVENTS = st.builds(
    _event,
    st.sampled_from(["emit", "decide", "internal"]),
    _TEXT,
    st.one_of(st.none(), _TEXT),
    st.dictionaries(_TEXT, _VALUE, max_size=5),
    st.sampled_from([None, "allow", "deny", "ask"]),
    st.one_of(st.none(), _TEXT),
    _TEXT,
)


def _visible(text: str) -> str:
    return _OURS.sub("", text)


@settings(max_examples=400, deadline=None)
@given(_EVENTS, st.integers(min_value=1, max_value=240), st.booleans())
def test_a_fitted_line_fits_and_carries_only_whole_hookd_colours(ev, width, colour):
    text = tailfmt.line(ev, colour, width=width)
    seen = _visible(text)
    # Only hookd's own sequences, each whole: nothing of an escape (or any other control) is left once they are removed.
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in seen), repr(seen)
    assert wcswidth(seen) <= width and tailfmt.cells(seen) <= width
    # Every colour is closed before the next opens, and the line ends uncoloured: no colour bleeds.
    codes = _OURS.findall(text)
    assert all((a == tailfmt.RESET) != (b == tailfmt.RESET) for a, b in itertools.pairwise(codes))
    assert not codes or codes[-1] == tailfmt.RESET
    if not colour:
        assert text == seen


@pytest.mark.parametrize("mark", ["\U0001d16d", "\u0903"])  # spacing marks: a cell of their own after a letter or a space
@pytest.mark.parametrize("colour", [False, True])
def test_a_character_whose_width_depends_on_the_one_before_is_measured_in_its_line(mark: str, colour: bool) -> None:
    ev = Event(1, 0.0, "emit", mark, "s" + mark, payload={"toolName": "a" + mark * 3})
    for width in range(1, 80):
        seen = _visible(tailfmt.line(ev, colour, width=width))
        assert wcswidth(seen) <= width, (width, seen)


@settings(max_examples=300, deadline=None)
@given(_EVENTS, st.integers(min_value=1, max_value=240))
def test_a_cut_line_is_the_start_of_the_full_line_then_an_ellipsis(ev, width):
    full = tailfmt.line(ev)
    cut = tailfmt.line(ev, width=width)
    if tailfmt.cells(full) <= width:
        assert cut == full
    else:
        assert cut.endswith(tailfmt.ELLIPSIS)
        assert (full + " " * width).startswith(cut[: -len(tailfmt.ELLIPSIS)])


def test_the_decision_and_reason_come_before_the_payload_and_survive_a_narrow_terminal():
    ev = _event(
        "decide",
        "tool.approval.pre",
        "s1",
        {"toolName": "execute_command", "args": {"command": "rm -rf / " + "x" * 300}},
        "deny",
        "no recursive delete of /",
        "guard",
    )
    full = tailfmt.line(ev)
    assert full.index("deny (no recursive delete of /) by guard") < full.index("execute_command rm -rf /")
    narrow = tailfmt.line(ev, width=120)
    assert "deny (no recursive delete of /) by guard" in narrow and narrow.endswith("…")
    assert "x" * 300 in full  # whole lines when not fitted (a pipe, a file, --full)


def test_a_cut_never_splits_a_wide_character_or_leaves_a_colour_open():
    ev = _event("emit", "custom.wide", None, {"text": "中" * 80}, None, None, "")
    for width in range(1, 90):
        text = tailfmt.line(ev, True, width=width)
        assert tailfmt.cells(_visible(text)) <= width
        assert text.count("\x1b[") == 2 * text.count(tailfmt.RESET)
