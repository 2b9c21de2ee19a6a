"""Subscriptions to the daemon's event stream, as iterators.

A subscription gets its own connection (the daemon turns a subscribed
connection into a one-way stream), so the client that created it stays free
for calls. Iterating yields :class:`Event` and :class:`Gap` objects in seq
order; a Gap says how many matching events this subscriber missed and never
comes silently. ``follow=False`` stops after the replay of history.

    with Client() as c:
        for ev in c.subscribe(points=["tool.*"], since="10m"):
            print(ev.seq, ev.point)

    async with AsyncClient() as c:
        async for ev in c.subscribe(sessions=["s1"]):
            ...
"""

from __future__ import annotations

import datetime
import os
import re
import socket
from collections import deque
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from . import verify
from .errors import ConnectionLost, HookdError, welcome_of
from .framing import BadMessage, FrameDecoder, FrameTooLarge, reply_codec
from .messages import PROTOCOL_VERSION, Done, Error, Event, Gap, Hello, Live, Reply, Subscribe, Subscribed, Unsubscribe
from .receive import Receiver

if TYPE_CHECKING:
    import asyncio

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)\s*")

Since = int | float | str | datetime.timedelta | None

# A subscription connection carries only these requests, so fixed ids are enough.
SUBSCRIBE_ID = 2
UNSUBSCRIBE_ID = 3


def parse_duration(text: str) -> float:
    """``"90s"``, ``"5m"``, ``"1h30m"``, ``"2d"`` -> seconds. Raises ValueError naming the problem."""
    pos = 0
    total = 0.0
    for match in _DURATION.finditer(text):
        if match.start() != pos:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not text.strip():
        raise ValueError(f"not a duration: {text!r} (use e.g. 30s, 5m, 1h, 2d, or a sequence number)")
    return total


def parse_since(since: Since) -> tuple[int | None, float | None]:
    """``since`` as (since_seq, since_age): an int (or digits) is a seq, a duration is an age."""
    if since is None:
        return None, None
    if isinstance(since, bool):
        raise TypeError("since must be a seq number, a duration or a timedelta")
    if isinstance(since, int):
        if since < 0:
            raise ValueError("a since seq cannot be negative")
        return since, None
    if isinstance(since, datetime.timedelta):
        return None, max(0.0, since.total_seconds())
    if isinstance(since, float):
        return None, max(0.0, since)
    text = since.strip()
    if text.isdigit():
        return int(text), None
    return None, parse_duration(text)


def subscribe_request(
    points: Iterable[str] = (),
    sessions: Iterable[str] = (),
    projects: Iterable[str] = (),
    since: Since = None,
    follow: bool = True,
    queue: int | None = None,
    queue_bytes: int | None = None,
) -> Subscribe:
    since_seq, since_age = parse_since(since)
    if isinstance(points, str) or isinstance(sessions, str) or isinstance(projects, str):
        raise TypeError("points, sessions and projects are lists of strings, not one string")
    return Subscribe(
        SUBSCRIBE_ID,
        list(points),
        list(sessions),
        [os.path.abspath(p) for p in projects],
        since_seq,
        since_age,
        follow,
        queue,
        queue_bytes,
    )


class _State:
    """The sans-IO part: what each frame means for the iterator."""

    def __init__(self, request: Subscribe) -> None:
        self.request = request
        self.subscribed: Subscribed | None = None
        self.live = False
        self.ended = False
        self.items: deque[Event | Gap | Live] = deque()
        self.unsubscribe_id = 0
        self.yield_live = False

    def feed(self, msg: Reply) -> None:
        if isinstance(msg, Event | Gap):
            self.items.append(msg)
        elif isinstance(msg, Live):
            self.live = True
            if self.yield_live:
                self.items.append(msg)
            if not self.request.follow:
                self.ended = True
        elif isinstance(msg, Subscribed):
            self.subscribed = msg
        elif isinstance(msg, Done) and msg.id == self.unsubscribe_id:
            self.ended = True
        elif isinstance(msg, Error):
            raise HookdError(msg.code, msg.message)

    def next_item(self) -> Event | Gap | Live | None:
        """The next item to yield; None when a frame must be read first. StopIteration once the
        stream has ended and every item before its end was taken."""
        if self.items:
            return self.items.popleft()
        if self.ended:
            raise StopIteration
        return None


def _hello(name: str) -> Hello:
    return Hello(1, PROTOCOL_VERSION, name, os.getpid())


class _Stream:
    """What the blocking and the async subscription share: the request's state and the decoder."""

    def __init__(self, path: str, name: str, request: Subscribe) -> None:
        self.path = path
        self.name = name
        self._state = _State(request)
        self._codec = reply_codec()
        self._decoder = FrameDecoder(1 << 30)
        self._inbox: deque[Reply] = deque()

    @property
    def subscribed(self) -> Subscribed | None:
        """The daemon's answer (newest seq, oldest seq kept, queue bounds), once open."""
        return self._state.subscribed

    @property
    def live(self) -> bool:
        """True once the replay of history is over."""
        return self._state.live

    def _take(self, data: bytes) -> None:
        """Frames from one read into the inbox; an empty read or a bad frame ends the stream."""
        if not data:
            raise ConnectionLost()
        try:
            self._inbox.extend(self._codec.decode(body) for body in self._decoder.feed(data))
        except (FrameTooLarge, BadMessage) as exc:
            raise ConnectionLost(f"bad frame from {self.path}: {exc}") from None

    def mark_live(self: _S) -> _S:
        """Also yield the :class:`Live` marker that ends the replay (to tell history from live)."""
        self._state.yield_live = True
        return self


_S = TypeVar("_S", bound=_Stream)


class Subscription(_Stream):
    """A blocking iterator over events. Close it (or use ``with``) to end the stream."""

    def __init__(self, path: str, name: str, request: Subscribe, timeout: float | None = None) -> None:
        super().__init__(path, name, request)
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._receiver = Receiver(256 * 1024)

    def open(self) -> Subscription:
        if self._sock is not None:
            return self
        sock = verify.connect(self.path, self.timeout)
        self._sock = sock
        try:
            sock.sendall(self._codec.encode(_hello(self.name)))
            welcome_of(self._recv_one())
            sock.sendall(self._codec.encode(self._state.request))
            while self._state.subscribed is None:
                self._state.feed(self._recv_one())
        except BaseException:
            self.close()
            raise
        return self

    def _recv_one(self) -> Reply:
        while not self._inbox:
            self._fill()
        return self._inbox.popleft()

    def _fill(self) -> None:
        sock = self._sock
        if sock is None:
            raise ConnectionLost("the subscription is closed")
        try:
            data = self._receiver.recv(sock)
        except TimeoutError:
            raise HookdError("timeout", f"no event within {self.timeout} s") from None
        except OSError as exc:
            raise ConnectionLost(f"connection to {self.path} failed: {exc}") from None
        self._take(data)

    def __iter__(self) -> Subscription:
        return self

    def __next__(self) -> Event | Gap | Live:
        self.open()
        state = self._state
        try:
            while (item := state.next_item()) is None:
                state.feed(self._recv_one())
        except StopIteration:
            self.close()
            raise
        return item

    def unsubscribe(self) -> None:
        """Ask the daemon to end the stream; iteration stops after events already sent."""
        if self._sock is None:
            return
        self._state.unsubscribe_id = UNSUBSCRIBE_ID
        self._sock.sendall(self._codec.encode(Unsubscribe(UNSUBSCRIBE_ID)))

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> Subscription:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncSubscription(_Stream):
    """An async iterator over events: ``async for ev in sub`` (or ``async with sub``)."""

    def __init__(self, path: str, name: str, request: Subscribe) -> None:
        super().__init__(path, name, request)
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def open(self) -> AsyncSubscription:
        if self._writer is not None:
            return self
        from . import aioconn  # here, not at the top: a sync client should not pay ~30 ms to import asyncio

        self._reader, self._writer = await aioconn.connect(self.path)
        try:
            self._writer.write(self._codec.encode(_hello(self.name)))
            welcome_of(await self._recv_one())
            self._writer.write(self._codec.encode(self._state.request))
            while self._state.subscribed is None:
                self._state.feed(await self._recv_one())
        except BaseException:
            await self.aclose()
            raise
        return self

    async def _recv_one(self) -> Reply:
        while not self._inbox:
            reader = self._reader
            if reader is None:
                raise ConnectionLost("the subscription is closed")
            try:
                data = await reader.read(256 * 1024)
            except OSError as exc:
                raise ConnectionLost(f"connection to {self.path} failed: {exc}") from None
            self._take(data)
        return self._inbox.popleft()

    def __aiter__(self) -> AsyncSubscription:
        return self

    async def __anext__(self) -> Event | Gap | Live:
        await self.open()
        state = self._state
        try:
            while (item := state.next_item()) is None:
                state.feed(await self._recv_one())
        except StopIteration:
            await self.aclose()
            raise StopAsyncIteration from None
        return item

    async def unsubscribe(self) -> None:
        if self._writer is None:
            return
        self._state.unsubscribe_id = UNSUBSCRIBE_ID
        self._writer.write(self._codec.encode(Unsubscribe(UNSUBSCRIBE_ID)))
        await self._writer.drain()

    async def aclose(self) -> None:
        writer, self._writer = self._writer, None
        self._reader = None
        from . import aioconn  # not at the top: it imports asyncio (see open)

        await aioconn.close(writer)

    async def __aenter__(self) -> AsyncSubscription:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
