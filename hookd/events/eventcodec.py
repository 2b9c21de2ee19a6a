"""An event becomes its wire body once, when it is published.

The same bytes serve every subscriber and every replay, each under its length
header, and the history ring keeps only them; the journal writes the event's
JSON line. A payload's decoded objects are freed as soon as it is published.

An event msgpack cannot carry (a file name with lone surrogates, an integer over
64 bits, nesting past the encoder's limit) is never dropped and never takes
other events with it: it is replaced, under its own seq, by a
``hookd.event.unencodable`` marker that says which point it was, why, and
carries the payload with its offending values made safe when that is possible.
"""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from hookd_client import messages as m
from hookd_client.framing import HEADER

from hookd.core.intake import MAX_DEPTH, Unfit, check, safe_text

log = structlog.get_logger("hookd.bus")

UNENCODABLE = "hookd.event.unencodable"
_TOO_DEEP = f"<nested deeper than {MAX_DEPTH} levels>"
_encoder = msgspec.msgpack.Encoder()
_INT64 = (-(1 << 63), (1 << 64) - 1)


def frame(msg: m.Reply) -> bytes:
    """One reply as a length-prefixed frame."""
    body = _encode(msg)
    return _pack(len(body)) + body  # measured cheaper than encode_into a bytearray and copying it out


_encode = encode = _encoder.encode
_pack = pack = HEADER.pack


def with_outcome(ev: m.Event, outcome: Any) -> None:
    """Give ``ev`` what a decision chain's ended state says: decision, reason, decided_by, how
    many errors, and ``runs``, each hook's result."""
    ev.decision = outcome.decision
    ev.reason = outcome.reason
    ev.decided_by = outcome.decided_by
    ev.errors = len(outcome.errors)
    ev.hooks = getattr(outcome, "runs", None) or []


def encoded(ev: m.Event) -> tuple[bytes, m.Event]:
    """The event's frame and the struct it encodes: a marker under the same seq when the event cannot be encoded."""
    bodies, events = encode_pass([ev])
    return _pack(len(bodies[0])) + bodies[0], events[0]


def encode_pass(events: list[m.Event]) -> tuple[list[bytes], list[m.Event]]:
    """A pass's msgpack bodies, in one encoder loop, and the structs they encode: ``events``
    itself, unless the encoder refuses one, which then (the slow way) gets its marker."""
    try:
        return list(map(_encode, events)), events
    except Exception:
        pass
    bodies: list[bytes] = []
    kept: list[m.Event] = []
    for ev in events:
        try:
            body = _encode(ev)
        except Exception as exc:  # whatever the encoder raises, the event is degraded, not lost
            data, ev = degraded(ev, exc)
            body = data[HEADER.size :]
        bodies.append(body)
        kept.append(ev)
    return bodies, kept


def _reason(ev: m.Event, exc: BaseException) -> str:
    try:
        check(ev.payload, "payload")
    except Unfit as unfit:
        return safe_text(str(unfit))  # it may quote the offending key
    except Exception:  # the check itself choked; the encoder's word is all there is
        pass
    return safe_text(f"{type(exc).__name__}: {exc}")


def degraded(ev: m.Event, exc: BaseException) -> tuple[bytes, m.Event]:
    """The frame and struct of the marker that stands, under ``ev``'s seq, for an event the encoder refused with ``exc``."""
    reason = _reason(ev, exc)
    log.warning("an event cannot be encoded; a marker takes its place", seq=ev.seq, point=safe_text(ev.point), reason=reason)
    about = {"point": safe_text(ev.point), "kind": ev.kind, "reason": reason}
    marker = m.Event(
        ev.seq,
        ev.time,
        "internal",
        UNENCODABLE,
        _text(ev.session),
        _text(ev.project),
        {**about, "payload": made_safe(ev.payload)},
        ev.decision,
        _text(ev.reason),
        None,
        ev.errors,
        ev.duration,
        0,
        ev.hooks,
    )
    try:
        return frame(marker), marker
    except Exception:  # even the made-safe payload failed: the marker alone still goes out
        marker.payload = about
        marker.reason = None
        marker.hooks = []
        return frame(marker), marker


def _text(value: str | None) -> str | None:
    return None if value is None else safe_text(value)


def made_safe(value: Any, depth: int = 0) -> Any:
    """``value`` with what msgpack cannot carry replaced by text saying what it was.

    Recursion is bounded by MAX_DEPTH, so a hostile nesting cannot exhaust the stack here.
    """
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, bool) or value is None or isinstance(value, (float, bytes)):
        return value
    if isinstance(value, int):
        return value if _INT64[0] <= value <= _INT64[1] else str(value)
    if isinstance(value, (dict, list, tuple)):
        if depth >= MAX_DEPTH:
            return _TOO_DEEP
        if isinstance(value, dict):
            return {(safe_text(k) if isinstance(k, str) else safe_text(str(k))): made_safe(v, depth + 1) for k, v in value.items()}
        return [made_safe(v, depth + 1) for v in value]
    try:
        _encoder.encode(value)
        return value
    except Exception:  # anything else the encoder refuses becomes its description
        return safe_text(f"<{type(value).__name__}>")
