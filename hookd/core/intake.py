"""One check for everything foreign before it goes near the wire.

Hook stdout, worker lines, plugin answers, callback answers and file names all
come from outside hookd. Whatever of them ends up in a reply or an event must
be something msgpack can carry and a peer can decode: no integer beyond 64
bits, no text that is not valid UTF-8 (lone surrogates from undecodable file
names), no value nested deeper than a decoder will follow. ``check`` says what
is wrong, with where, so the caller can degrade the one answer (a hook error
naming the problem) instead of failing the whole reply or the connection.
"""

from __future__ import annotations

from typing import Any

import msgspec

# Deeper than any real payload, shallow enough that every decoder we know of
# (msgspec, @msgpack/msgpack, Go's) follows it without a recursion error.
MAX_DEPTH = 64

_encoder = msgspec.msgpack.Encoder()


class Unfit(ValueError):
    """A foreign value the wire cannot carry. ``str()`` says what and where."""


def check(value: Any, what: str = "value", max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`Unfit` unless ``value`` encodes as msgpack within ``max_depth``."""
    _depth_check(value, what, max_depth)
    try:
        _encoder.encode(value)
    except OverflowError:
        raise Unfit(f"{what}: an integer does not fit in 64 bits") from None
    except UnicodeEncodeError as exc:
        raise Unfit(f"{what}: text is not valid UTF-8 ({exc.reason} at {exc.start})") from None
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        raise Unfit(f"{what}: cannot be encoded: {exc}") from None


def fits(value: Any, max_depth: int = MAX_DEPTH) -> bool:
    try:
        check(value, max_depth=max_depth)
    except Unfit:
        return False
    return True


def _depth_check(value: Any, what: str, max_depth: int) -> None:
    # Iterative, so that a hostile value cannot make the check itself recurse too deep.
    stack: list[tuple[Any, int, str]] = [(value, 0, what)]
    while stack:
        item, depth, where = stack.pop()
        if isinstance(item, dict):
            children: Any = item.items()
        elif isinstance(item, (list, tuple)):
            children = enumerate(item)
        else:
            continue
        if depth >= max_depth:
            raise Unfit(f"{where}: nested deeper than {max_depth} levels")
        for key, child in children:
            if isinstance(child, (dict, list, tuple)):
                stack.append((child, depth + 1, f"{where}.{key}" if depth < 8 else where))


def safe_text(name: str | bytes) -> str:
    """A file name (or any OS string) as text the wire can carry: undecodable bytes
    shown as backslash escapes, never as lone surrogates that fail to encode later."""
    if isinstance(name, bytes):
        return name.decode("utf-8", "backslashreplace")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        try:
            # Bytes the OS could not decode (os.fsdecode's escapes) come back as \xNN.
            return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            # Any other lone surrogate (from JSON's \udXXX escapes, say) is shown as \udXXX.
            return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return name
