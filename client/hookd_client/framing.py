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
DEFAULT_MAX_FRAME = 1 << 20


class FrameTooLarge(Exception):
    """A frame header declared more bytes than the receiver accepts."""

    def __init__(self, declared: int, limit: int) -> None:
        super().__init__(f"frame declares {declared} bytes, over the limit of {limit} bytes")
        self.declared = declared
        self.limit = limit


class BadMessage(Exception):
    """A frame body that is not valid msgpack or does not match the schema.

    ``request_id`` is the body's ``id`` when one could still be read, so the
    error can be matched to the request that caused it; 0 otherwise.
    """

    def __init__(self, message: str, request_id: int = 0) -> None:
        super().__init__(message)
        self.request_id = request_id


class FrameDecoder:
    """Accumulates bytes and yields complete frame bodies.

    The declared length is checked before any body byte is buffered, so a
    hostile header cannot make the receiver allocate its declared size.
    """

    __slots__ = ("_buf", "max_frame")

    def __init__(self, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self._buf = bytearray()
        self.max_frame = max_frame

    def feed(self, data: bytes) -> list[bytes]:
        buf = self._buf
        buf += data
        bodies: list[bytes] = []
        pos = 0
        end = len(buf)
        while end - pos >= HEADER_SIZE:
            (length,) = HEADER.unpack_from(buf, pos)
            if length > self.max_frame:
                del buf[:]
                raise FrameTooLarge(length, self.max_frame)
            stop = pos + HEADER_SIZE + length
            if stop > end:
                break
            bodies.append(bytes(buf[pos + HEADER_SIZE : stop]))
            pos = stop
        if pos:
            del buf[:pos]
        return bodies

    @property
    def buffered(self) -> int:
        """Bytes held that do not yet make a whole frame."""
        return len(self._buf)


def frame(body: bytes) -> bytes:
    """Prefix one body with its length header."""
    return HEADER.pack(len(body)) + body


class Codec:
    """Encodes messages to frames and decodes frame bodies to messages.

    One instance per side: ``Codec(AnyRequest)`` on the daemon (it receives
    requests), ``Codec(AnyReply)`` on a client.
    """

    __slots__ = ("_decoder", "_encoder", "_raw")

    def __init__(self, receives: Any) -> None:
        self._decoder = msgspec.msgpack.Decoder(receives)
        self._encoder = msgspec.msgpack.Encoder()
        self._raw = msgspec.msgpack.Decoder()

    def encode(self, msg: Request | Reply) -> bytes:
        """One message as a complete frame (header included)."""
        buf = bytearray(HEADER_SIZE)
        self._encoder.encode_into(msg, buf, HEADER_SIZE)
        HEADER.pack_into(buf, 0, len(buf) - HEADER_SIZE)
        return bytes(buf)

    def encode_into(self, msg: Request | Reply, out: bytearray) -> None:
        """Append one message as a frame to ``out`` (for batching many replies)."""
        start = len(out)
        out += b"\0\0\0\0"
        self._encoder.encode_into(msg, out, start + HEADER_SIZE)
        HEADER.pack_into(out, start, len(out) - start - HEADER_SIZE)

    def decode(self, body: bytes) -> Any:
        """Decode one body; raises BadMessage naming what was wrong."""
        try:
            return self._decoder.decode(body)
        except msgspec.ValidationError as exc:
            raise BadMessage(f"invalid message: {exc}", self._salvage_id(body)) from None
        except msgspec.DecodeError as exc:
            raise BadMessage(f"body is not valid msgpack: {exc}") from None

    def _salvage_id(self, body: bytes) -> int:
        try:
            raw = self._raw.decode(body)
        except msgspec.DecodeError:
            return 0
        if isinstance(raw, dict):
            rid = raw.get("id")
            if isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 2**63:
                return rid
        return 0


def request_codec() -> Codec:
    return Codec(AnyRequest)


def reply_codec() -> Codec:
    return Codec(AnyReply)
