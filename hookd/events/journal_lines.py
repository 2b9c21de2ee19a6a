"""The journal's JSON lines: events encoded in one encoder call, and what stands in for one that cannot be.

Every event becomes exactly one line: a payload JSON cannot hold (msgpack extension types) is
replaced by a note saying why, and a frame of ours that does not decode becomes a marker under
its seq, so a line is never lost.
"""

from __future__ import annotations

import time

import msgspec
from hookd_client.framing import HEADER_SIZE
from hookd_client.messages import Event

_json = msgspec.json.Encoder()
_decode = msgspec.msgpack.Decoder(Event).decode


def lines(events: list[Event]) -> bytes:
    """The events' JSON lines: one encoder call, or line by line when one event cannot be encoded."""
    try:
        return _json.encode_lines(events)
    except (TypeError, ValueError):
        return b"".join([_line(event) for event in events])


def event_of(seq: int, frame: bytes) -> Event:
    """The event a frame holds (for a caller that had no struct)."""
    try:
        return _decode(memoryview(frame)[HEADER_SIZE:])
    except msgspec.DecodeError as exc:  # our own frame: should not happen, but never loses the line
        return Event(seq, time.time(), "internal", "hookd.event.unencodable", payload={"reason": f"journal: {exc}"})


def _line(event: Event) -> bytes:
    try:
        return _json.encode(event) + b"\n"
    except (TypeError, ValueError) as exc:
        # A payload JSON cannot hold (msgpack extension types): keep the event, say why.
        kept = msgspec.structs.replace(event, payload={"unencodable": f"{type(exc).__name__}: {exc}"})
        return _json.encode(kept) + b"\n"
