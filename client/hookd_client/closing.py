"""How an asyncio connection of the client ends: its tasks cancelled and waited for, then its
socket closed and waited for. Imported by the async parts only (a sync client does not load asyncio)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


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
