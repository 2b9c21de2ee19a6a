"""The one check for foreign values: what it lets through the wire can carry, whatever came in."""

from __future__ import annotations

import os

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from hookd.core import intake


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF)))
def test_safe_text_always_encodes_and_keeps_plain_text(text: str) -> None:
    out = intake.safe_text(text)
    out.encode("utf-8")  # never a lone surrogate
    msgspec.msgpack.encode(out)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert out == text


def test_undecodable_file_name_bytes_and_json_surrogates_are_shown_not_raised() -> None:
    assert intake.safe_text(os.fsdecode(b"bad-\xff.py")) == "bad-\\xff.py"
    assert intake.safe_text(b"bad-\xff.py") == "bad-\\xff.py"
    assert intake.safe_text("lone-\ud800") == "lone-\\ud800"
