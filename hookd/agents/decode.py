"""A hook input as agents really write it, decoded so that hookd's guards see the call.

Node's ``JSON.stringify`` writes a lone UTF-16 surrogate as the escape ``"\\ud800"`` (a model can put
one in a tool's arguments), and nothing stops a tool input from nesting deeper than a recursive
decoder follows. A strict decoder refuses both, and a hook input refused is a tool call no guard
saw. So:

- lone surrogate escapes become U+FFFD, and bytes that are not UTF-8 too;
- nesting is decoded at any depth the body limit allows, without recursion. A call nested deeper
  than ``MAX_NESTING`` levels cannot be handed to hookd's hooks (each encoder and decoder on the
  way, msgpack and JSON, in the daemon and in clients, stops somewhere near a thousand): it is
  decoded only as far as its top-level fields (the event, the session, the project, the tool),
  which is what it takes to name the guards it is denied for, and :class:`Unfit` says why.

The fast path is msgspec's decoder, as before; the rest runs only for what it refuses. Only the
standard library and msgspec are imported (the command bridge uses this too).
"""

from __future__ import annotations

from typing import Any

import msgspec

# Deeper than any real tool input, and well inside what every encoder and decoder on a hook's way follows.
MAX_NESTING = 512
# A body larger than this is decoded off the event loop.
OFF_LOOP = 256 << 10


class Undecodable(ValueError):
    """Not JSON at all, even read leniently. ``str()`` says what is wrong."""


class Unfit(ValueError):
    """Decoded, but hookd's hooks cannot be handed it. ``value`` holds its top-level fields."""

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.value = value


def hook_input(body: bytes) -> Any:
    """The hook input in ``body``. Raises Undecodable, Unfit."""
    try:
        value = msgspec.json.decode(body)
    except msgspec.DecodeError as exc:
        return _lenient(body, exc)
    except RecursionError:
        return _lenient(body, None)
    _check_depth(body, value)
    return value


async def hook_input_async(body: bytes) -> Any:
    """:func:`hook_input`, on a thread for a large body (its lenient decode, or the walk of a value
    with many containers, may take a while), so that the event loop goes on meanwhile."""
    if len(body) > OFF_LOOP:
        import asyncio  # here: the command bridge imports this module, and never asyncio

        return await asyncio.to_thread(hook_input, body)
    return hook_input(body)


def _lenient(body: bytes, error: msgspec.DecodeError | None) -> Any:
    from hookd.agents import decode_lenient

    fixed = decode_lenient.repaired(body)
    if fixed is not body:
        try:
            value = msgspec.json.decode(fixed)
        except msgspec.DecodeError as exc:
            error = exc
        except RecursionError:
            error = None
        else:
            _check_depth(fixed, value)
            return value
    if error is not None:
        raise Undecodable(f"not valid JSON: {error}") from None
    # Deeper than msgspec follows: only the top level is decoded, and the call cannot be handed on.
    try:
        top, depth = decode_lenient.top_level(fixed, MAX_NESTING)
    except decode_lenient.NotJSON as exc:
        raise Undecodable(str(exc)) from None
    raise Unfit(f"its input is nested more than {MAX_NESTING} levels deep ({depth}), deeper than hookd can hand its hooks", top)


def _check_depth(body: bytes, value: Any) -> None:
    # A value cannot nest deeper than it has brackets: only a body with that many is walked.
    if body.count(b"[") + body.count(b"{") <= MAX_NESTING:
        return
    depth = nesting(value, MAX_NESTING + 1)
    if depth > MAX_NESTING:
        from hookd.agents import decode_lenient

        top = None
        if isinstance(value, dict):
            top = {k: decode_lenient.TOO_DEEP if isinstance(v, (dict, list)) else v for k, v in value.items()}
        raise Unfit(f"its input is nested more than {MAX_NESTING} levels deep, deeper than hookd can hand its hooks", top)


def nesting(value: Any, stop: int) -> int:
    """How deep ``value``'s containers nest (a scalar: 0), counted without recursion up to ``stop``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > deepest:
            deepest = depth
            if deepest >= stop:
                return deepest
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest
