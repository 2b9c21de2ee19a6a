"""Trace excerpts of hostile output: any bytes become bounded text the wire can carry."""

from __future__ import annotations

import msgspec
from hookd_client.messages.observe import TRACE_EXCERPT
from hypothesis import given
from hypothesis import strategies as st

from hookd.core.intake import safe_text
from hookd.core.trace import Capture, excerpt, output


@given(st.binary(max_size=3 * TRACE_EXCERPT) | st.text(max_size=2 * TRACE_EXCERPT))
def test_any_output_becomes_bounded_encodable_text(data: bytes | str) -> None:
    text = excerpt(data)
    if not data:
        assert text is None
        return
    assert isinstance(text, str) and len(text) <= 4 * TRACE_EXCERPT + 100
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(text)) == text
    whole = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if len(data) > TRACE_EXCERPT:
        unit = "bytes" if isinstance(data, bytes) else "characters"
        assert text.endswith(f"\n[... {len(data) - TRACE_EXCERPT} more {unit} not shown]")
    else:
        assert text == safe_text(whole)


def test_output_is_kept_only_while_a_capture_is_set() -> None:
    from hookd.core.trace import CAPTURE

    output(b"ignored", b"")  # no traced call: nothing kept, nothing raised
    capture = Capture()
    token = CAPTURE.set(capture)
    try:
        output(b'{"decision": "deny"}', b"\xff\xfe not utf-8")
    finally:
        CAPTURE.reset(token)
    assert capture.stdout == '{"decision": "deny"}' and capture.stderr is not None and "not utf-8" in capture.stderr
