"""The slow half of :mod:`decode`: repairing what a strict JSON decoder refuses, and reading the top
level of a value nested too deeply to decode whole. Only ever runs for a body msgspec refused.

Reading a too-deep value never recurses and never builds its deep parts: a 32 MiB body of ``[``
costs a scan of it (runs of brackets are counted, not stepped through), not millions of lists.
Its nested parts are not checked beyond bracket balance and whole strings: the call is not handed
to any hook anyway, only the top-level fields are used to name the guards it is denied for.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

TOO_DEEP = "<nested too deeply for hookd's hooks>"

# A surrogate escape, or an escaped backslash (consumed as a pair, so that ``\\ud800`` is text).
_ESCAPES = re.compile(rb"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_ANY_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")
_REPLACEMENT = b"\\ufffd"
_WS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
_STRUCTURAL = re.compile(rb'["\[\]{}]')
_OPENS = re.compile(rb"[\[{][\[{ \t\n\r]*")
_CLOSES = re.compile(rb"[\]}][\]} \t\n\r]*")


class NotJSON(ValueError):
    """Not even the top level of the body reads as JSON. ``str()`` says what is wrong."""


class _Bad(ValueError):
    pass


def _escape(match: re.Match[bytes]) -> bytes:
    text = match.group()
    # An escaped backslash and a whole surrogate pair stay; a lone surrogate becomes U+FFFD.
    return text if len(text) != 6 else _REPLACEMENT


def repaired(body: bytes) -> bytes:
    """``body`` with bytes that are not UTF-8, and lone surrogate escapes, replaced by U+FFFD (``body``
    itself when there is nothing to replace)."""
    fixed = body
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        fixed = body.decode("utf-8", "replace").encode("utf-8")
    if _ANY_SURROGATE.search(fixed):
        fixed = _ESCAPES.sub(_escape, fixed)
    return fixed


def top_level(body: bytes, limit: int) -> tuple[Any, int]:
    """(the top-level object with its too-deep values replaced by a note, how deep the body nests at
    least). Raises NotJSON when even that cannot be read."""
    try:
        return _top_level(body, limit)
    except _Bad as exc:
        raise NotJSON(f"not valid JSON: {exc}") from None


def _top_level(data: bytes, limit: int) -> tuple[Any, int]:
    pos = _WS.match(data, 0).end()  # type: ignore[union-attr]
    if pos >= len(data) or data[pos] not in b"[{":
        raise _Bad("its top level is nested too deeply or is not an object")
    if data[pos] == ord("["):
        end, depth = _skip(data, pos)
        _end_of(data, end)
        return None, depth
    out: dict[str, Any] = {}
    deepest = 1
    pos = _WS.match(data, pos + 1).end()  # type: ignore[union-attr]
    if data[pos : pos + 1] == b"}":
        _end_of(data, pos + 1)
        return out, deepest
    while True:
        key = _STRING.match(data, pos)
        if key is None:
            raise _Bad(f"a key was expected at byte {pos}")
        name = msgspec.json.decode(key.group())
        pos = _WS.match(data, key.end()).end()  # type: ignore[union-attr]
        if data[pos : pos + 1] != b":":
            raise _Bad(f"':' was expected at byte {pos}")
        pos = _WS.match(data, pos + 1).end()  # type: ignore[union-attr]
        first = data[pos : pos + 1]
        if first == b'"':
            match = _STRING.match(data, pos)
            if match is None:
                raise _Bad(f"an unterminated string at byte {pos}")
            out[name] = msgspec.json.decode(match.group())
            pos = match.end()
        elif first in (b"[", b"{"):
            end, depth = _skip(data, pos)
            deepest = max(deepest, depth + 1)
            out[name] = _value(data[pos:end], depth, limit)
            pos = end
        else:
            match = _SCALAR.match(data, pos)
            if match is None:
                raise _Bad(f"a value was expected at byte {pos}")
            out[name] = msgspec.json.decode(match.group())
            pos = match.end()
        pos = _WS.match(data, pos).end()  # type: ignore[union-attr]
        sep = data[pos : pos + 1]
        if sep == b"}":
            _end_of(data, pos + 1)
            return out, deepest
        if sep != b",":
            raise _Bad(f"',' or '}}' was expected at byte {pos}")
        pos = _WS.match(data, pos + 1).end()  # type: ignore[union-attr]


def _value(raw: bytes, depth: int, limit: int) -> Any:
    if depth >= limit:
        return TOO_DEEP
    try:
        return msgspec.json.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return TOO_DEEP


def _end_of(data: bytes, pos: int) -> None:
    if _WS.match(data, pos).end() != len(data):  # type: ignore[union-attr]
        raise _Bad(f"more after the value, at byte {pos}")


def _skip(data: bytes, pos: int) -> tuple[int, int]:
    """The end of the array or object starting at ``pos``, and how deep it nests: without recursion,
    a run of brackets (and the blanks between them) taken in one step."""
    depth = deepest = 0
    while True:
        found = _STRUCTURAL.search(data, pos)
        if found is None:
            raise _Bad("an array or object is not closed")
        at = found.start()
        char = data[at]
        if char == 0x22:  # a string: brackets inside it do not count
            match = _STRING.match(data, at)
            if match is None:
                raise _Bad(f"an unterminated string at byte {at}")
            pos = match.end()
            continue
        if char in b"[{":
            run = _OPENS.match(data, at)
            assert run is not None
            text = run.group()
            depth += text.count(b"[") + text.count(b"{")
            deepest = max(deepest, depth)
            pos = run.end()
            continue
        if depth == 0:
            raise _Bad(f"a close without an open at byte {at}")
        run = _CLOSES.match(data, at)
        assert run is not None
        text = run.group()
        closes = text.count(b"]") + text.count(b"}")
        if closes < depth:
            depth -= closes
            pos = run.end()
            continue
        # This run closes the value (and maybe more): the value ends at its depth-th close.
        seen = 0
        for i, c in enumerate(text):
            if c in b"]}":
                seen += 1
                if seen == depth:
                    return at + i + 1, deepest
