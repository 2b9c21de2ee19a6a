"""Every event the journal loses is counted in a loss report, exactly, even when its disk is still
full as the daemon stops. Real daemons; a full disk is a file size limit on the daemon process
(RLIMIT_FSIZE: past it a write stores part of its data, then fails, as ENOSPC does).

Counted in the journal itself, once the next daemon has started: written + counted lost ==
published, with every missing seq inside a report's range.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

from hookd_client import Client, ConnectionLost, Event, Gap

from hookd.events import journal_files

from ..conftest import Env
from .test_journal_faults import limited, start_limited

__all__ = ["limited"]  # the fixture, used by name


def covered(reports: list[Event], seq: int) -> bool:
    return any(r.payload["from"] <= seq <= r.payload["to"] for r in reports)


def test_a_journal_still_failing_at_the_stop_counts_every_event_it_lost(env: Env, limited: Any, daemon_factory: Any) -> None:
    proc = start_limited(env, 24 * 1024)
    limited.append(proc)
    path = str(env.state / "hookd" / "events.jsonl")
    seen: list[Event] = []
    ready = threading.Event()
    errors: list[BaseException] = []

    def follow() -> None:
        # Every event from seq 1 to the daemon's last, in order: the stream must lose none.
        try:
            with Client(env.socket, timeout=60) as c, c.subscribe(since=0, timeout=120, queue=1_000_000) as sub:
                ready.set()
                for item in sub:
                    assert not isinstance(item, Gap), item
                    seen.append(item)
        except ConnectionLost:  # the daemon closes the stream as it stops
            pass
        except BaseException as exc:
            errors.append(exc)
        finally:
            ready.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    assert ready.wait(60)
    with Client(env.socket, timeout=60) as c:
        for i in range(800):
            c.emit("custom.fill", {"i": i, "text": "the disk fills up " * 4})
        # The disk is full, and stays so: the daemon stops while its journal fails.
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0
    reader.join(60)

    live = [e.seq for e in seen]
    assert live == list(range(1, len(live) + 1)), "the stream skipped a seq"
    assert not errors, errors

    # The next daemon (with room on its disk) numbers on right after the last seq the first handed out.
    after = daemon_factory()
    with after.client() as c:
        c.emit("custom.next", {})
    assert after.stop() == 0
    journaled = list(journal_files.read(path))
    first_of_next = min(e.seq for e in journaled if e.seq > live[-1] and e.point == "hookd.daemon.started")
    published = first_of_next - 1  # the first daemon's seqs: 1 .. published
    written = {e.seq for e in journaled if e.seq <= published}
    missing = [s for s in range(1, published + 1) if s not in written]
    assert missing, "the file size limit was never reached: the test proves nothing"
    reports = [e for e in journaled if e.point == "hookd.journal.lost" and e.payload["from"] <= published]
    assert len(written) + sum(int(r.payload.get("count", 0)) for r in reports) == published
    assert all(covered(reports, s) for s in missing)
