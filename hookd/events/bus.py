"""The event bus: every emit, decide and daemon happening, in order, to whoever listens.

:meth:`Bus.publish` numbers the event and encodes it once (eventcodec.py); the
body is then shared by the history ring (history.py), the journal writer's queue
and, once per event-loop pass, every subscriber it matches (subscriber.py). The
ring keeps only the bodies, bounded by count and by their bytes, so its memory is
what its bound says.

Seqs never go back, even after a crash: with a journal, the bus reserves them
in blocks in a small state file before handing them out (seqblock.py), and the
next daemon starts after the reserved block. Seqs reserved but not in the
journal after an unclean stop are announced as ``hookd.journal.lost``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import structlog
from hookd_client import messages as m
from hookd_client.framing import HEADER_SIZE

from hookd.core.refusal import Refusal
from hookd.events.eventcodec import encode_pass, frame
from hookd.events.eventcodec import with_outcome as _with_outcome
from hookd.events.history import History, records, replay
from hookd.events.journal import BATCH_DELAY, Journal
from hookd.events.journal_reports import Reports
from hookd.events.seqblock import SeqBlocks
from hookd.events.subscriber import Filter, Record, Selection, Subscriber

__all__ = ["Bus", "BusError", "Filter", "Record"]

log = structlog.get_logger("hookd.bus")

# Live events are fanned out, and staged events encoded, at most this long after publication.
# Waiting a moment turns a steady trickle of events into one write per subscriber per pass
# instead of one per event. It is longer than the kernel's tick on purpose: a pending timer
# shorter than the tick made every wait of the event loop reprogram the CPU's timer, which on
# this class of VM cost ~10 us of daemon CPU per sequential decide (1 ms against 10 ms, same run).
DISPATCH_DELAY = 0.01
# With no live subscriber, staged events wait for nobody but the ring and the journal, whose
# readers flush them first (Bus.flush): they are encoded, and handed to the journal's writer,
# at the journal's own pace. A timer that far off is rarely the loop's nearest one close to
# firing, where one every DISPATCH_DELAY kept the loop's waits short most of the time.
IDLE_DELAY = BATCH_DELAY
# Staged events keep their decoded payloads until they are encoded: past this many bytes of
# request frames (about one pipelined read's worth) they are encoded right after the read that
# staged them, once its replies are written (the client then sends its next requests while the
# daemon encodes; two CPUs take turns less: ~8% more pipelined emits unpinned). Held longer, a
# busy connection's payloads fell out of the CPU's caches before they were encoded, and every
# step after the read ran on cold memory: 256 KiB cost ~10% more daemon CPU per pipelined emit.
STAGED_BYTES = 16 << 10
# Passes are also spaced by PASS_SPACING per subscriber the last pass wrote to, up to
# MAX_PASS_SPACING. Every pass wakes each subscriber it writes to, and on a machine with few
# CPUs those wake-ups, not the daemon's writes, are most of what subscribers cost an emitter:
# the spacing keeps them to about 500 a second in all, whatever the number of subscribers, so
# the more subscribers share the events, the more events each pass carries. A subscriber sees
# an event within about DISPATCH_DELAY; with ten or more, within about MAX_PASS_SPACING.
PASS_SPACING = 0.002
MAX_PASS_SPACING = 0.02
_now = time.time
_Event = m.Event


class BusError(Refusal):
    """A subscribe/unsubscribe request that cannot be served (becomes an Error reply)."""


class Bus:
    def __init__(
        self,
        history: int = 10_000,
        history_bytes: int = 64 << 20,
        queue: int = 16_384,
        queue_bytes: int = 8 << 20,
        max_queue: int = 1_000_000,
        max_queue_bytes: int = 256 << 20,
        journal: Journal | None = None,
        first_seq: int = 1,
        seq_blocks: SeqBlocks | None = None,
        startup_notes: list[tuple[str, dict[str, Any]]] | None = None,
        observe: Callable[[str, dict[str, Any], str | None, str | None], None] | None = None,
    ) -> None:
        self.seq = first_seq - 1
        self.first_seq = first_seq
        self.ring = History(history, history_bytes)
        self.queue = queue
        self.queue_bytes = queue_bytes
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        self.journal = journal
        self.seq_blocks = seq_blocks
        # Seqs up to here may be handed out; past it, a new block is reserved first.
        self._reserved = seq_blocks.reserved if seq_blocks is not None else None
        self._reserve_failing = False
        self.subscribers: dict[Any, Subscriber] = {}
        self._live: list[Record] = []
        self._staged: list[m.Event] = []  # numbered, not yet encoded (a publish with a size)
        self._staged_bytes = 0
        self._flush_soon = False  # a flush is due right after the current read (STAGED_BYTES)
        self._scheduled = False
        self._idle_pass: asyncio.TimerHandle | None = None  # the pending pass, when nobody subscribed
        self._next_pass = 0.0  # loop time before which the next fan-out pass waits
        self._loop: asyncio.AbstractEventLoop | None = None
        self._startup_notes: list[tuple[str, dict[str, Any]]] = list(startup_notes or ())  # announced once the bus runs
        self.reports = Reports(self.internal, self._quiet, self._fan_out)  # the journal writer's
        # Internal events also reach the catch-all `event` observers, through this one step.
        self.observe = observe

    # ---------------------------------------------------------- publishing

    def publish(
        self,
        kind: str,
        point: str,
        session: str | None,
        project: str | None,
        payload: dict[str, Any],
        outcome: Any = None,
        duration: float | None = None,
        size: int = 0,
    ) -> None:
        """Put one event on the bus, no I/O, no await: numbered now and, with a ``size`` of 0 (not
        known: the daemon's own events, HTTP hooks' calls), encoded at once, after any staged
        before it. A call answered on the hot path gives ``size``, its request's frame bytes: its
        event is staged, encoded with the next fan-out pass (within DISPATCH_DELAY) or, once the
        sizes add up to STAGED_BYTES, right after the read being answered. The caller hands ``payload``
        and ``outcome`` (a chain's ended state) over. A pass's events encoded together run warm
        (one at a time between two round trips ran several times slower); seq, time and order are
        the call's own, and every reader sees staged events first (:meth:`flush`)."""
        if "agentEnv" in payload:  # the agent's environment (secrets included) is for its hooks, not the journal
            payload = {k: v for k, v in payload.items() if k != "agentEnv"}
        self.seq = seq = self.seq + 1
        if self._reserved is not None and seq > self._reserved:
            self._reserve(seq)
        # The wire struct is made now, from the arguments at hand: no tuple of them to unpack later,
        # and, for the calls with no outcome (most), no function call in between.
        ev = _Event(seq, _now(), kind, point, session, project, payload, duration=duration)  # type: ignore[arg-type]
        if outcome is not None:
            _with_outcome(ev, outcome)
        self._staged.append(ev)
        self._staged_bytes += size
        if not size:
            self._flush()
        elif self._staged_bytes > STAGED_BYTES and not self._flush_soon:
            if self._loop is None:
                self._flush()
            else:
                # Right after the read that staged them, once its replies are written: the client
                # sends its next requests while the daemon encodes these, not after.
                self._flush_soon = True
                self._loop.call_soon(self.flush)
        if not self._scheduled and self._loop is not None:  # no loop yet: only events of size 0 come, and they flush
            self._scheduled = True
            if self.subscribers:
                self._loop.call_later(DISPATCH_DELAY, self._dispatch)
            else:
                self._idle_pass = self._loop.call_later(IDLE_DELAY, self._idle_dispatch)

    def flush(self) -> None:
        """Encode the staged events into the ring, the journal's queue and the live stream."""
        self._flush_soon = False
        if self._staged:
            self._flush()

    def _flush(self) -> None:
        # A pass's events go to the ring, the journal and the live stream together: one call
        # each for the pass, not one per event (this runs for every event the daemon sees).
        staged, self._staged = self._staged, []
        self._staged_bytes = 0
        bodies, events = encode_pass(staged)
        size = sum(map(len, bodies)) + HEADER_SIZE * len(bodies)  # the frames' bytes
        self.ring.add(bodies, size, events[-1].seq)
        if self.journal is not None:
            self.journal.put_all(events, bodies, size)
        if self.subscribers:
            # Selected by what the bodies hold, as a read back from the ring selects them.
            self._live.extend(records(events, bodies))

    def _reserve(self, seq: int) -> None:
        blocks = self.seq_blocks
        assert blocks is not None
        try:
            blocks.reserve_from(seq)
        except OSError as exc:
            # Going on unreserved risks a reused seq only if this daemon also dies uncleanly
            # before the disk works again; stopping every emit would be worse. Retry a little later.
            self._reserved = seq + blocks.retry_after - 1
            if not self._reserve_failing:
                self._reserve_failing = True
                log.error("cannot reserve event seqs; retrying", path=blocks.path, error=str(exc))
                self._note("hookd.journal.error", {"path": blocks.path, "error": str(exc), "what": "seq reservation"})
            return
        if self._reserve_failing:
            self._reserve_failing = False
            log.warning("event seqs are reserved again", path=blocks.path)
        self._reserved = blocks.reserved

    def _note(self, point: str, payload: dict[str, Any]) -> None:
        if self._loop is None:
            self._startup_notes.append((point, payload))
        else:
            self._loop.call_soon(self.internal, point, payload)

    def _quiet(self, point: str, payload: dict[str, Any]) -> None:
        self.publish("internal", point, None, None, payload)

    def internal(self, point: str, payload: dict[str, Any], session: str | None = None, project: str | None = None) -> None:
        """A daemon happening (``hookd.*``), on the same bus as everything else."""
        self.publish("internal", point, session, project, payload)
        if self.observe is not None:
            self.observe(point, payload, session, project)

    # ------------------------------------------------------------ fan-out

    def _dispatch(self) -> None:
        """The fan-out timer: staged events encoded; a pass now, or later when the last one was too recent."""
        if self._staged:
            self._flush()
        loop = self._loop
        assert loop is not None
        wait = self._next_pass - loop.time()
        if wait > 0 and self._live:
            loop.call_later(wait, self._dispatch)
            return
        self._scheduled = False
        self._fan_out()

    def _idle_dispatch(self) -> None:
        """The pass of events staged while nobody subscribed: encoded, and on to the journal's writer
        now, having waited as long as the journal batches them."""
        self._idle_pass = None
        self._dispatch()
        if self.journal is not None:
            self.journal.flush()

    def _cancel_idle_pass(self) -> None:
        if self._idle_pass is not None:
            self._idle_pass.cancel()
            self._idle_pass = None
            self._scheduled = False

    def _fan_out(self) -> None:
        """Deliver every pending live event to its subscribers, now."""
        if self._staged:
            self._flush()
        written = 0
        # Loops because a fan-out can itself publish (hookd.subscriber.behind).
        while self._live:
            batch, self._live = self._live, []
            # Subscribers that want the same events share one selection and one joined write:
            # each event was encoded once at publication, and each keeping-up subscriber gets
            # the pass's events in one transport write, not one per event.
            shared: dict[tuple[Any, ...], Selection] = {}
            for sub in list(self.subscribers.values()):
                flt = sub.filter
                selection = shared.get(flt.key)
                if selection is None:
                    selection = shared[flt.key] = Selection(batch if flt.everything else [rec for rec in batch if flt(rec)])
                if selection.records:
                    sub.offer_all(selection)
                    written += 1
                sub.pump()
        if written and self._loop is not None:
            self._next_pass = self._loop.time() + min(MAX_PASS_SPACING, PASS_SPACING * written)

    # --------------------------------------------------------- subscribing

    def subscribe(self, conn: Any, req: m.Subscribe) -> m.Subscribed:
        stream = getattr(conn, "stream", None)
        if conn in self.subscribers or (stream is not None and stream.sending):
            raise BusError(m.ErrorCode.CONFLICT, "this connection is already subscribed; unsubscribe first or open another connection")
        if stream is not None:  # a replay-only stream that has ended: the connection is an ordinary one again
            self.detach(conn)
        if req.since_seq is not None and req.since_age is not None:
            raise BusError(m.ErrorCode.BAD_REQUEST, "give since_seq or since_age, not both")
        for project in req.projects:
            if not os.path.isabs(project):
                raise BusError(m.ErrorCode.BAD_REQUEST, f"projects must be absolute paths, got {project!r}")
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        # Deliver what is pending to the others first: from here on, this subscriber's
        # history comes from the ring and its live events from later fan-outs, so it
        # sees every event exactly once.
        self._fan_out()
        flt = Filter(req.points, req.sessions, req.projects)
        count = min(req.queue or self.queue, self.max_queue)
        size = min(req.queue_bytes or self.queue_bytes, self.max_queue_bytes)
        sub = Subscriber(self, conn, flt, count, size)
        replay(sub, self.ring, self.first_seq, req)
        sub.mark(frame(m.Live(self.seq)))
        if req.follow:
            self.subscribers[conn] = sub
            # Staged events were encoded by the fan-out above: the next ones are live within DISPATCH_DELAY.
            self._cancel_idle_pass()
        conn.stream = sub  # pause/resume_writing reach it (also for a replay-only stream)
        oldest = self.ring.oldest()
        if oldest is None:
            oldest = self.seq + 1
        # The reply goes out with this read's batch; the stream starts right after it.
        asyncio.get_running_loop().call_soon(sub.start)
        return m.Subscribed(req.id, self.seq, oldest, count, size)

    def unsubscribe(self, conn: Any, req: m.Unsubscribe) -> m.Done:
        sub = self.detach(conn)
        if sub is None:
            raise BusError(m.ErrorCode.NOT_FOUND, "this connection has no subscription")
        return m.Done(req.id, sub.delivered)

    def detach(self, conn: Any) -> Subscriber | None:
        """End the connection's subscription: the one it follows, or a replay still being sent."""
        sub = self.subscribers.pop(conn, None)
        stream = getattr(conn, "stream", None)
        if stream is not None:
            if sub is None and stream.sending:
                sub = stream
            stream.clear()
            conn.stream = None
        return sub

    # ------------------------------------------------------------ lifetime

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.journal is not None:
            try:
                self.journal.start()
            except OSError as exc:
                log.error("cannot open the journal; running without it", path=self.journal.path, error=str(exc))
                self.journal = None
                self.seq_blocks = None  # seqs then restart with the next daemon's journal, as without one
                self._reserved = None
            else:
                self.reports.loop = self._loop
                self.journal.notify = self.reports.note
                if self.journal.torn_bytes:
                    self._startup_notes.append(
                        ("hookd.journal.repaired", {"path": self.journal.path, "torn_bytes": self.journal.torn_bytes})
                    )
        notes, self._startup_notes = self._startup_notes, []
        for point, payload in notes:
            self.internal(point, payload)

    def journal_status(self) -> dict[str, Any]:
        """What the journal wrote and lost, for the daemon's status."""
        if self.journal is None:
            return {"enabled": False}
        self.flush()
        return {"enabled": True, **self.journal.stats()}

    def close(self) -> None:
        self._cancel_idle_pass()
        self._fan_out()  # subscribers still connected see the last events (hookd.daemon.stopped)
        journal = self.journal
        if journal is None:
            return
        journal.stop()
        # What the writer reported as it stopped (a failure that ended in its last pass, events
        # dropped at the backlog bound) goes on the bus and to disk before the stop is recorded.
        reported = self.reports.finish(journal)
        # A failure still going on would be reported by the next write that works, and there is
        # none: its count goes into the stop record, from which the next daemon reports it in the
        # journal (no subscriber is connected any more to be told).
        lost = journal.lost_at_stop()
        journal.release()
        if self.seq_blocks is not None:
            # A clean stop: the next daemon continues right after the last seq, with no loss to report.
            try:
                self.seq_blocks.stopped_at(self.seq, clean=reported and not journal.failing, lost=lost)
            except OSError as exc:
                log.error("cannot record the last event seq", path=self.seq_blocks.path, error=str(exc))
