"""Both ends of a subscribed connection for the bus's unit tests, over a real socket pair."""

from __future__ import annotations

import asyncio
from typing import Any

from hookd_client.framing import FrameDecoder, reply_codec


class Conn(asyncio.Protocol):
    """The daemon's side of a connection, as far as the bus needs it."""

    def __init__(self) -> None:
        self.transport: Any = None
        self.stream: Any = None
        self.peer = 0
        self.client = "test"
        self.paused_writing = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def pause_writing(self) -> None:
        if self.stream is not None:
            self.stream.pause_writing()

    def resume_writing(self) -> None:
        if self.stream is not None:
            self.stream.resume_writing()


class Reader(asyncio.Protocol):
    """A subscriber process's side: decodes every frame it receives."""

    def __init__(self) -> None:
        self.frames = FrameDecoder()
        self.codec = reply_codec()
        self.items: list[Any] = []

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            self.items.append(self.codec.decode(body))
