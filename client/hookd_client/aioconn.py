"""An asyncio connection of the client to the daemon: how it opens (the socket path and the
process listening on it checked, as :func:`verify.connect` does for a sync client) and how it
ends. Imported by the async parts only: a sync client does not load asyncio."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from . import verify
from .errors import DaemonNotRunning


async def connect(path: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the daemon at ``path``: DaemonNotRunning when nothing listens there, and
    refused (closed again) when the path or the peer is not this user's."""
    verify.check_path(path)
    try:
        reader, writer = await asyncio.open_unix_connection(path, limit=1 << 20)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise DaemonNotRunning(path, exc.strerror or type(exc).__name__) from None
    try:
        verify.check_peer(writer.get_extra_info("socket"), path)
    except BaseException:
        writer.close()
        raise
    return reader, writer


async def close(writer: asyncio.StreamWriter | None, *tasks: asyncio.Task[Any] | None) -> None:
    """Cancel each of ``tasks`` still running and wait for it (whatever it raised is its own
    business now), then close ``writer``; a ``None`` is nothing to end."""
    for task in tasks:
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
    if writer is not None:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
