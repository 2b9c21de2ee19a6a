"""The dashboard's link to the daemon stops when asked, even when a change comes in at the same moment.

On Python 3.11, ``asyncio.wait_for`` returned the awaited result and dropped a cancel that landed as that result
came in; the status poll then went on waiting, and `hookd dashboard` never exited on SIGTERM (the suite's
dashboard tests were killed after their hang guard, about one run in thirty)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hookd_client.errors import DaemonNotRunning

from hookd.dashboard.link import Link

HANG_GUARD = 30.0  # seconds: only so that a link that does not stop fails the test instead of hanging it


def _link(tmp_path: Path) -> Link:
    link = Link(str(tmp_path / "hookd.sock"), "dana", poll=600.0)

    async def no_daemon() -> None:
        raise DaemonNotRunning(link.socket or "", "not started in this test")

    link._connected_client = no_daemon  # type: ignore[method-assign,assignment]  # every poll fails at once, then waits
    return link


async def _until_waiting(link: Link) -> None:
    # The poll fails without suspending, then waits for a change (or its 600 s): a few loop turns get it there.
    for _ in range(10):
        await asyncio.sleep(0)


def test_a_cancel_that_meets_a_change_stops_the_status_poll(tmp_path: Path) -> None:
    async def main() -> None:
        link = _link(tmp_path)
        poll = asyncio.ensure_future(link._poll())
        await _until_waiting(link)
        link._dirty.set()  # a call was made: the wait is over ...
        poll.cancel()  # ... as the dashboard stops
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(poll, HANG_GUARD)

    asyncio.run(main())


def test_close_ends_the_link_when_events_arrive_as_it_stops(tmp_path: Path) -> None:
    async def main() -> None:
        link = _link(tmp_path)
        link.start()
        await _until_waiting(link)
        link._dirty.set()
        await asyncio.wait_for(link.close(), HANG_GUARD)
        assert all(task.done() for task in link._tasks)

    asyncio.run(main())
