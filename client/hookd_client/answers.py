"""A handler's answer as bytes on the wire, whatever the handler did.

Every ``invoke`` gets exactly one ``invoke_result``. A handler may raise
anything, return something msgpack cannot carry (a ``pathlib.Path``, an
integer over 64 bits, text with lone surrogates, a cycle), something the
daemon would refuse (``decision: "block"``), or an answer too big for a frame.
Each of these becomes an error answer that names the handler and what was
wrong, so the daemon records a hook error and applies the hook's
``on_error``; nothing of it may escape into the thread or task that runs
handlers, which would leave the daemon waiting for an answer until the hook
times out.

Sans-IO, shared by both clients.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from .framing import HEADER_SIZE
from .messages import Decision, InvokeResult

# The daemon follows 64 levels in anything foreign; the answer's own envelope
# (invoke_result -> decision -> modifiedInput) takes two of them.
MAX_DEPTH = 62
# An error text longer than this is cut: it ends up in an outcome and a log line.
MAX_ERROR = 4000

_validate = msgspec.msgpack.Decoder(InvokeResult)


def describe(exc: BaseException) -> str:
    """``Type: message`` for an exception, even one whose ``__str__`` fails or yields unencodable text."""
    try:
        text = str(exc)
    except Exception:
        text = "<the exception's message could not be read>"
    return clean(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def clean(text: str, limit: int = MAX_ERROR) -> str:
    """Text the wire can carry: lone surrogates shown as escapes, at most ``limit`` characters."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def failure(call: int, hook: str, what: str) -> InvokeResult:
    return InvokeResult(call, None, clean(f"handler {clean(hook, 200)!r} {what}"))


def encode_answer(encode: Callable[[InvokeResult], bytes], result: InvokeResult, hook: str, max_frame: int | None = None) -> bytes:
    """The frame for ``result``, or for an error answer naming why ``result`` cannot be sent."""
    try:
        problem = _too_deep(result.decision)
        if problem is None:
            data = encode(result)
            problem = _refused(data)
            if problem is None and max_frame is not None and len(data) - HEADER_SIZE > max_frame:
                problem = f"answered {len(data) - HEADER_SIZE} bytes, over the daemon's frame limit of {max_frame} bytes"
            if problem is None:
                return data
    except Exception as exc:
        try:
            problem = _unencodable(result.decision, exc)
        except Exception:  # a hostile container can fail the search too: say less, still answer
            problem = f"answered a value msgpack cannot carry ({describe(exc)})"
    return encode(failure(result.call, hook, problem))


def _refused(data: bytes) -> str | None:
    """Why the daemon would refuse this answer (it decodes with the same schema), or None."""
    try:
        _validate.decode(memoryview(data)[HEADER_SIZE:])
    except msgspec.ValidationError as exc:
        return f"answered an invalid decision: {clean(str(exc), 500)}"
    except msgspec.DecodeError as exc:
        return f"answered something that does not decode: {clean(str(exc), 500)}"
    return None


def _too_deep(decision: Decision | None) -> str | None:
    if decision is None or not isinstance(decision, Decision):
        return None
    for field, value in (("modifiedInput", decision.modified_input), ("modifiedOutput", decision.modified_output)):
        if value is not None:
            problem = _shape(value, MAX_DEPTH)
            if problem is not None:
                return f"answered a {field} {problem}"
    return None


# More values than this cannot fit a frame anyway; the walk stops there (a value
# that shares its parts can be exponentially larger than its memory).
_MAX_VALUES = 1_000_000


def _shape(value: Any, limit: int) -> str | None:
    # Iterative and bounded: a hostile (even cyclic) value cannot make the check recurse or run on.
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple | set | frozenset):
            children = item
        else:
            continue
        if depth >= limit:
            return f"nested deeper than {limit} levels"
        seen += len(children)
        if seen > _MAX_VALUES:
            return f"of more than {_MAX_VALUES} values"
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list | tuple | set | frozenset))
    return None


def _unencodable(decision: Any, exc: BaseException) -> str:
    where, culprit = _locate(decision)
    kind = type(culprit).__name__
    if isinstance(exc, OverflowError):
        reason = "an integer that does not fit in 64 bits"
    elif isinstance(exc, UnicodeEncodeError):
        reason = "text that is not valid UTF-8 (a lone surrogate)"
    elif isinstance(exc, RecursionError):
        reason = "a value that contains itself or nests too deep"
    else:
        reason = f"a {kind}, which msgpack cannot carry"
    at = f" at {where}" if where else ""
    return f"answered {reason}{at} ({describe(exc)}); return plain data (str, int, float, bool, None, list, dict)"


_probe = msgspec.msgpack.Encoder()


def _encodes(value: Any) -> bool:
    try:
        _probe.encode(value)
    except Exception:
        return False
    return True


def _children(item: Any) -> list[tuple[str, Any]] | None:
    if isinstance(item, msgspec.Struct):
        return [(f.encode_name, getattr(item, f.name, None)) for f in msgspec.structs.fields(type(item))]
    if isinstance(item, dict):
        pairs: list[tuple[str, Any]] = []
        for n, (key, child) in enumerate(item.items()):
            if n >= 10_000:
                break
            pairs.append((f"<key {clean(repr(key), 40)}>", key))
            pairs.append((clean(str(key), 40) if isinstance(key, str) else clean(repr(key), 40), child))
        return pairs
    if isinstance(item, list | tuple | set | frozenset):
        return [(str(i), child) for i, child in enumerate(item) if i < 10_000]
    return None


def _locate(value: Any) -> tuple[str, Any]:
    """Where in ``value`` the first thing msgpack cannot carry sits, as a dotted path, and that thing."""
    path: list[str] = []
    item = value
    seen: set[int] = set()
    for _ in range(MAX_DEPTH + 2):
        if id(item) in seen:
            break
        seen.add(id(item))
        children = _children(item)
        if not children:
            break
        for name, child in children:
            if not _encodes(child):
                path.append(name)
                item = child
                break
        else:
            break
    return ".".join(path), item
