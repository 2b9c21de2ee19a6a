"""What the journal's writer reports (a failure, what it lost) on its way to the bus.

The writer runs on its own thread: a report is queued here and published on the event loop. As
the daemon stops, the loop runs no more callbacks until the bus has recorded the stop, and a
report published after that would take a seq the next daemon hands out again. So the bus's close
publishes and writes what the writer reported as it stopped (:meth:`Reports.finish`), and past
the recorded stop a report is only logged.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog

if TYPE_CHECKING:
    from hookd.events.journal import Journal

log = structlog.get_logger("hookd.bus")

Publish = Callable[[str, dict[str, Any]], None]
# Rounds of the writer's last reports written at the stop (a report's own write may end a failure
# and make one more); any left after them make the stop an unclean one.
LAST_ROUNDS = 3


class Reports:
    def __init__(self, internal: Publish, quiet: Publish, fan_out: Callable[[], None]) -> None:
        self.internal = internal  # on the bus, to catch-all observers too
        self.quiet = quiet  # on the bus only (at the stop: the daemon is past running hooks)
        self.fan_out = fan_out
        self.notes: deque[tuple[str, dict[str, Any]]] = deque()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closed = False  # the stop is recorded

    def note(self, point: str, payload: dict[str, Any]) -> None:
        """A report (writer thread): published on the loop, or, once the stop is recorded, logged."""
        self.notes.append((point, payload))
        if self.closed:  # a writer still at work at the stop
            self.publish()
        elif self.loop is not None:
            self.loop.call_soon_threadsafe(self.publish)

    def publish(self, publish: Publish | None = None) -> None:
        notes = self.notes
        while True:
            try:
                point, payload = notes.popleft()
            except IndexError:  # empty (also when the writer's thread took the last one)
                return
            if self.closed:
                log.error("journal report after the stop; not published", point=point, **payload)
            else:
                (publish or self.internal)(point, payload)

    def finish(self, journal: Journal) -> bool:
        """At the stop, the writer's thread stopped: publish and write what it reported as it
        stopped. True when all of it is written (else the stop is not a clean one)."""
        for _ in range(LAST_ROUNDS):
            if not self.notes:
                break
            self.publish(self.quiet)
            self.fan_out()
            journal.write_rest()
        done = not self.notes
        self.closed = True
        self.publish()  # what is left (a writer still at work): logged
        return done
