"""The sans-IO framing and codec: partial reads, many frames per read, limits, garbage."""

from __future__ import annotations

import contextlib
import struct

import msgspec
import pytest
from hookd_client import messages as m
from hookd_client.framing import BadMessage, FrameDecoder, FrameTooLarge, frame, reply_codec, request_codec
from hypothesis import given, settings
from hypothesis import strategies as st


def test_one_frame_in_one_read():
    assert FrameDecoder().feed(frame(b"abc")) == [b"abc"]


def test_partial_reads_byte_by_byte():
    dec = FrameDecoder()
    data = frame(b"hello") + frame(b"") + frame(b"world")
    out: list[bytes] = []
    for i in range(len(data)):
        out += dec.feed(data[i : i + 1])
    assert out == [b"hello", b"", b"world"]
    assert dec.buffered == 0


def test_many_frames_in_one_read_and_a_trailing_partial():
    dec = FrameDecoder()
    data = b"".join(frame(bytes([i]) * i) for i in range(50))
    tail = frame(b"partial")
    assert dec.feed(data + tail[:6]) == [bytes([i]) * i for i in range(50)]
    assert dec.feed(tail[6:]) == [b"partial"]


def test_frames_cut_from_a_reused_receive_buffer_outlive_the_next_read():
    buf = bytearray(frame(b"first") + frame(b"second") + frame(b"third")[:6])
    dec = FrameDecoder()
    bodies = dec.feed(memoryview(buf))
    buf[:] = bytes(len(buf))  # the next read reuses the buffer
    assert [bytes(b) for b in bodies] == [b"first", b"second"] and dec.buffered == 6
    assert dec.feed(b"ird") == [b"third"]


def test_declared_length_over_limit_raises_before_buffering_the_body():
    dec = FrameDecoder(max_frame=100)
    with pytest.raises(FrameTooLarge) as info:
        dec.feed(struct.pack(">I", 2**32 - 1))
    assert info.value.declared == 2**32 - 1 and info.value.limit == 100
    assert "over the limit of 100 bytes" in str(info.value)
    assert dec.buffered == 0


def test_frame_exactly_at_limit_is_accepted():
    dec = FrameDecoder(max_frame=10)
    assert dec.feed(frame(b"x" * 10)) == [b"x" * 10]


def test_codec_round_trip_of_every_request_kind():
    codec = request_codec()
    dec = FrameDecoder()
    reqs = [
        m.Hello(1, m.PROTOCOL_VERSION, "t", 42),
        m.Emit(2, "tool.execute.after", {"a": 1}, "s", "/p", True),
        m.Decide(3, "tool.approval.pre", {"args": {"command": "ls"}}),
        m.AttachSession(4, "s", None, [m.HookSpec("n", "tool.approval.pre", "decision", "true")]),
        m.DisposeSession(5, "s"),
        m.Explain(6, "event"),
        m.StatusRequest(7),
    ]
    bodies = dec.feed(b"".join(codec.encode(r) for r in reqs))
    assert [codec.decode(b) for b in bodies] == reqs


def test_encode_into_appends_frames():
    codec = reply_codec()
    out = bytearray(b"")
    codec.encode_into(m.Done(1, 2), out)
    codec.encode_into(m.Error(3, "x", "y"), out)
    bodies = FrameDecoder().feed(bytes(out))
    assert [codec.decode(b) for b in bodies] == [m.Done(1, 2), m.Error(3, "x", "y")]


def test_schema_mismatch_salvages_the_id():
    codec = request_codec()
    body = msgspec.msgpack.encode({"type": "decide", "id": 77, "point": 5})
    with pytest.raises(BadMessage) as info:
        codec.decode(body)
    assert info.value.request_id == 77
    assert "point" in str(info.value)


def test_unknown_type_tag_is_named():
    codec = request_codec()
    with pytest.raises(BadMessage) as info:
        codec.decode(msgspec.msgpack.encode({"type": "fly", "id": 9}))
    assert info.value.request_id == 9
    assert "fly" in str(info.value)


def test_invalid_msgpack_is_a_bad_message_with_id_zero():
    with pytest.raises(BadMessage) as info:
        request_codec().decode(b"\xc1")
    assert info.value.request_id == 0


def test_hex_example_in_the_protocol_doc_is_what_the_codec_writes():
    """docs/protocol.md shows this exact frame; keep them in sync."""
    data = request_codec().encode(m.Hello(1, 1, "demo", 4242))
    assert data.hex(" ") == (
        "00 00 00 2d 85 a4 74 79 70 65 a5 68 65 6c 6c 6f a2 69 64 01 a8 70 72 6f 74 6f 63 6f 6c 01 a6 "
        "63 6c 69 65 6e 74 a4 64 65 6d 6f a3 70 69 64 cd 10 92"
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=64), max_size=20), st.lists(st.integers(1, 40), max_size=30))
def test_any_split_of_a_stream_yields_the_same_frames(bodies, cuts):
    data = b"".join(frame(b) for b in bodies)
    dec = FrameDecoder()
    out: list[bytes] = []
    pos = 0
    for cut in cuts:
        out += dec.feed(data[pos : pos + cut])
        pos += cut
    out += dec.feed(data[pos:])
    assert out == bodies


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=10), st.integers(0, 10), st.lists(st.integers(1, 30), max_size=30))
def test_any_split_answers_the_whole_frames_before_an_oversized_one_then_reports_it(bodies, at, cuts):
    limit = 40
    before = bodies[:at]
    data = b"".join(frame(b) for b in before) + struct.pack(">I", limit + 1) + b"what follows is never read"
    dec = FrameDecoder(max_frame=limit)
    out: list[bytes] = []
    pos = 0
    raised = None
    for cut in [*cuts, len(data)]:
        try:
            out += dec.feed(data[pos : pos + cut])
        except FrameTooLarge as exc:
            out += exc.complete
            raised = exc
            break
        pos += cut
    assert raised is not None and raised.declared == limit + 1
    assert out == before and dec.buffered == 0


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise_anything_but_protocol_errors(data):
    dec = FrameDecoder(max_frame=64)
    codec = request_codec()
    try:
        bodies = dec.feed(data)
    except FrameTooLarge:
        return
    for body in bodies:
        with contextlib.suppress(BadMessage):
            codec.decode(body)
