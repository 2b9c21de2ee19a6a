"""Sans-IO framing and codec: bytes in, messages out; messages in, bytes out.

A frame is a 4-byte big-endian unsigned length followed by that many bytes of
one msgpack body. Nothing here touches a socket, so both the daemon and the
clients (and the tests) drive it with whatever bytes they have.
"""

from __future__ import annotations

import struct
from typing import Any

import msgspec

from .messages import AnyReply, AnyRequest, Reply, Request

HEADER = struct.Struct(">I")
HEADER_SIZE = HEADER.size
_unpack_header = HEADER.unpack_from
DEFAULT_MAX_FRAME = 1 << 20


class FrameTooLarge(Exception):
    """A frame header declared more bytes than the receiver accepts.

    ``complete`` holds the bodies of the whole frames that came before it in
    the same feed: they are good requests and still deserve their replies.
    """

    def __init__(self, declared: int, limit: int, complete: list[bytes] | None = None) -> None:
        super().__init__(f"frame declares {declared} bytes, over the limit of {limit} bytes")
        self.declared = declared
        self.limit = limit
        self.complete = complete or []


class BadMessage(Exception):
    """A frame body that is not valid msgpack or does not match the schema.

    ``request_id`` is the body's ``id`` when one could still be read, so the
    error can be matched to the request that caused it; 0 otherwise.
    ``kind`` is its ``type`` and ``call`` its ``call`` field (an invoke result's
    invocation) when they could be read; "" and None otherwise.
    """

    def __init__(self, message: str, request_id: int = 0, kind: str = "", call: int | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id
        self.kind = kind
        self.call = call


class FrameDecoder:
    """Accumulates bytes and yields complete frame bodies.

    The declared length is checked before any body byte is buffered, so a
    hostile header cannot make the receiver allocate its declared size.
    """

    __slots__ = ("held", "max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.held = bytearray()  # bytes that do not yet make a whole frame (read it, never change it)
        self.max_frame = max_frame

    def feed(self, data: bytes) -> list[bytes]:
        buf = self.held
        if buf:
            buf += data
            if len(buf) < HEADER_SIZE:
                return []
            (length,) = HEADER.unpack_from(buf)
            if length <= self.max_frame and len(buf) < HEADER_SIZE + length:
                return []  # the first frame is still incomplete: a large one read in pieces is not copied each time
            try:
                bodies, used = self._split(bytes(buf))
            except FrameTooLarge:
                del buf[:]
                raise
            del buf[:used]
            return bodies
        if len(data) > HEADER_SIZE:
            # The common case, one whole frame in one read: no copy through the buffer.
            (length,) = HEADER.unpack_from(data)
            if length + HEADER_SIZE == len(data) and length <= self.max_frame:
                return [data[HEADER_SIZE:]]
        # Nothing held: frames are cut from the read itself, and only a partial one at its end
        # is kept (a read of many frames is not copied into the buffer first). A view of a
        # reused receive buffer is copied once, so no body of many outlives the next read.
        bodies, used = self._split(data if type(data) is bytes else bytes(data))
        if used < len(data):
            buf += memoryview(data)[used:]
        return bodies

    def _split(self, src: bytes) -> tuple[list[bytes], int]:
        """The whole frames at the start of ``src``, and how many bytes they take."""
        # Locals only in the loop: it runs for every frame of a pipelined read (a fifth less per frame).
        bodies: list[bytes] = []
        add = bodies.append
        unpack = _unpack_header
        limit = self.max_frame
        pos = 0
        last = len(src) - HEADER_SIZE  # the last offset a whole header can start at
        while pos <= last:
            (length,) = unpack(src, pos)
            if length > limit:
                raise FrameTooLarge(length, limit, bodies)
            start = pos + HEADER_SIZE
            stop = start + length
            if stop > last + HEADER_SIZE:
                break
            add(src[start:stop])
            pos = stop
        return bodies, pos

    @property
    def buffered(self) -> int:
        """Bytes held that do not yet make a whole frame."""
        return len(self.held)

    def discard(self) -> None:
        """Let go of the partial frame held (its memory with it): nothing after it can be read as frames."""
        self.held = bytearray()


def frame(body: bytes) -> bytes:
    """Prefix one body with its length header."""
    return HEADER.pack(len(body)) + body


class Codec:
    """Encodes messages to frames and decodes frame bodies to messages.

    One instance per side: ``Codec(AnyRequest)`` on the daemon (it receives
    requests), ``Codec(AnyReply)`` on a client.
    """

    __slots__ = ("_decoder", "_encoder")

    def __init__(self, receives: Any) -> None:
        self._decoder = msgspec.msgpack.Decoder(receives)
        self._encoder = msgspec.msgpack.Encoder()

    @property
    def decoder(self) -> msgspec.msgpack.Decoder[Any]:
        """The body decoder itself, for a caller's fast path (its errors are msgspec's; :meth:`decode` names them)."""
        return self._decoder

    @property
    def encoder(self) -> msgspec.msgpack.Encoder:
        return self._encoder

    def encode(self, msg: Request | Reply) -> bytes:
        """One message as a complete frame (header included)."""
        body = self._encoder.encode(msg)
        return HEADER.pack(len(body)) + body  # measured cheaper than encode_into a bytearray and copying it out

    def encode_into(self, msg: Request | Reply, out: bytearray) -> None:
        """Append one message as a frame to ``out`` (for batching many replies)."""
        start = len(out)
        out += b"\0\0\0\0"
        self._encoder.encode_into(msg, out, start + HEADER_SIZE)
        HEADER.pack_into(out, start, len(out) - start - HEADER_SIZE)

    def decode(self, body: bytes) -> Any:
        """Decode one body; raises BadMessage naming what was wrong (with the id, type and
        call it names when they can still be read, however broken the rest is)."""
        try:
            return self._decoder.decode(body)
        except msgspec.ValidationError as exc:
            message = f"invalid message: {exc}"
        except msgspec.DecodeError as exc:
            message = f"body is not valid msgpack: {exc}"
        except RecursionError:
            message = "body is nested too deeply to decode"
        raise BadMessage(message, *_salvage(bytes(body)))

    def encode_or_none(self, msg: Request | Reply, out: bytearray) -> str | None:
        """Append ``msg`` as a frame to ``out``; on failure leave ``out`` as it was and say why."""
        start = len(out)
        try:
            self.encode_into(msg, out)
        except RecursionError:
            del out[start:]
            return "a value is nested too deeply to encode"
        except OverflowError:
            del out[start:]
            return "an integer does not fit in 64 bits"
        except UnicodeEncodeError as exc:
            del out[start:]
            return f"text is not valid UTF-8 ({exc.reason})"
        except (TypeError, ValueError, msgspec.EncodeError) as exc:
            del out[start:]
            return f"cannot be encoded: {exc}"
        return None


# --------------------------------------------------------- salvaging a bad body
#
# A body that fails to decode may still name the request it belongs to. These
# read only the top-level map's scalar fields and skip every other value
# without decoding it, iteratively, so no nesting depth or declared length can
# make them recurse or allocate: they look at each byte at most once.

_SALVAGED = ("id", "type", "call")


def _salvage(body: bytes) -> tuple[int, str, int | None]:
    try:
        fields = peek_fields(body)
    except (IndexError, ValueError, UnicodeDecodeError):
        return 0, "", None
    rid = fields.get("id")
    kind = fields.get("type")
    call = fields.get("call")
    return (
        rid if _is_id(rid) else 0,
        kind if isinstance(kind, str) else "",
        call if _is_id(call) else None,
    )


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def peek_fields(body: bytes, names: tuple[str, ...] = _SALVAGED) -> dict[str, Any]:
    """The int and str values of ``names`` in a msgpack map, read without decoding the rest.

    Raises ValueError when the body is not a map, IndexError when it is cut short.
    """
    pos, count = _container(body, 0, want_map=True)
    found: dict[str, Any] = {}
    for _ in range(count):
        key, pos = _scalar(body, pos)
        if isinstance(key, str) and key in names:
            value, after = _scalar(body, pos)
            if value is not _SKIP:
                found[key] = value
                if len(found) == len(names):
                    break  # the rest (a payload, often) is never looked at
                pos = after
                continue
        pos = _skip(body, pos)
    return found


_SKIP = object()


def _container(b: bytes, pos: int, want_map: bool) -> tuple[int, int]:
    t = b[pos]
    if want_map:
        if 0x80 <= t <= 0x8F:
            return pos + 1, t & 0x0F
        if t == 0xDE:
            return pos + 3, int.from_bytes(b[pos + 1 : pos + 3], "big")
        if t == 0xDF:
            return pos + 5, int.from_bytes(b[pos + 1 : pos + 5], "big")
    raise ValueError("not a map")


def _scalar(b: bytes, pos: int) -> tuple[Any, int]:
    """An int or str at ``pos`` and the position after it; ``_SKIP`` for anything else."""
    t = b[pos]
    if t <= 0x7F:
        return t, pos + 1
    if t >= 0xE0:
        return t - 0x100, pos + 1
    if 0xA0 <= t <= 0xBF:
        n = t & 0x1F
        return _text(b, pos + 1, n), pos + 1 + n
    if t in _UINT:
        n = _UINT[t]
        return int.from_bytes(_take(b, pos + 1, n), "big"), pos + 1 + n
    if t in _INT:
        n = _INT[t]
        return int.from_bytes(_take(b, pos + 1, n), "big", signed=True), pos + 1 + n
    if t in _STR:
        width = _STR[t]
        n = int.from_bytes(_take(b, pos + 1, width), "big")
        start = pos + 1 + width
        return _text(b, start, n), start + n
    return _SKIP, pos


_UINT = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_INT = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_EXT = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXED = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xCA: 4, 0xCB: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}


def _take(b: bytes, pos: int, n: int) -> bytes:
    if pos + n > len(b):
        raise IndexError("body cut short")
    return b[pos : pos + n]


def _text(b: bytes, pos: int, n: int) -> str:
    return _take(b, pos, n).decode("utf-8")


def _skip(b: bytes, pos: int) -> int:
    """The position after one whole value at ``pos`` (containers skipped by counting, not recursion)."""
    todo = 1
    end = len(b)
    while todo:
        if pos >= end:
            raise IndexError("body cut short")
        todo -= 1
        t = b[pos]
        if t <= 0x7F or t >= 0xE0:
            pos += 1
        elif t <= 0x8F:
            todo += 2 * (t & 0x0F)
            pos += 1
        elif t <= 0x9F:
            todo += t & 0x0F
            pos += 1
        elif t <= 0xBF:
            pos += 1 + (t & 0x1F)
        elif t in _FIXED:
            pos += 1 + _FIXED[t]
        elif t in _UINT:
            pos += 1 + _UINT[t]
        elif t in _INT:
            pos += 1 + _INT[t]
        elif t in _STR or t in _BIN:
            width = _STR.get(t) or _BIN[t]
            pos += 1 + width + int.from_bytes(_take(b, pos + 1, width), "big")
        elif t in _EXT:
            width = _EXT[t]
            pos += 2 + width + int.from_bytes(_take(b, pos + 1, width), "big")
        elif t in (0xDC, 0xDD):
            width = 2 if t == 0xDC else 4
            todo += int.from_bytes(_take(b, pos + 1, width), "big")
            pos += 1 + width
        elif t in (0xDE, 0xDF):
            width = 2 if t == 0xDE else 4
            todo += 2 * int.from_bytes(_take(b, pos + 1, width), "big")
            pos += 1 + width
        else:
            raise ValueError(f"byte 0x{t:02x} starts no msgpack value")
        if pos > end:
            raise IndexError("body cut short")
    return pos


def request_codec() -> Codec:
    return Codec(AnyRequest)


def reply_codec() -> Codec:
    return Codec(AnyReply)
