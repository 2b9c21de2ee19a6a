"""The floor: a uvloop Unix-socket server that decodes each msgpack frame and
sends it back, with the same framing as hookd. Usage: echo_server.py SOCKET."""

from __future__ import annotations

import asyncio
import os
import sys

import msgspec
import uvloop
from hookd_client.framing import FrameDecoder, frame


class Echo(asyncio.Protocol):
    def __init__(self) -> None:
        self.decoder = FrameDecoder()
        self.dec = msgspec.msgpack.Decoder()
        self.enc = msgspec.msgpack.Encoder()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        out = bytearray()
        for body in self.decoder.feed(data):
            out += frame(self.enc.encode(self.dec.decode(body)))
        self.transport.write(out)  # type: ignore[attr-defined]


async def main(path: str) -> None:
    if os.path.exists(path):
        os.unlink(path)
    server = await asyncio.get_running_loop().create_unix_server(Echo, path)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    uvloop.run(main(sys.argv[1]))
