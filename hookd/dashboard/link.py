"""The dashboard's side of the daemon: one process-wide view, fed by ordinary client connections.

- the event stream, from ``history`` events back, then live (after a lost connection it resumes
  at the next seq, so nothing shows twice). The past comes from the journal first, so that it
  reaches back across daemon restarts (past.py), then from the daemon's memory;
- each decide with what its agent waited, a person's answer included (waits.py);
- an approver (hookd_client.approver), whose open offers are the page's pending approvals, but
  only while a page is open: a dashboard nobody looks at must not make every ``ask`` wait for its
  deadline. The approver connects when the first page opens its event stream and leaves
  :data:`PAGE_GRACE` seconds after the last one closed (a reload comes back within it);
- ``status`` (and ``stats``, on a daemon that has that request, with each hook row told apart by
  the hooks in force: hookrows.py) every ``poll`` seconds.

Each open page is a listener with a bounded queue of updates; a page that falls behind is
dropped and its browser reconnects, starting again from a snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from typing import Any

import msgspec
import structlog
from hookd_client import AsyncClient, HookdError
from hookd_client.approver import ApprovalClosed, ApprovalOffer, AsyncApprover
from hookd_client.errors import ConnectionLost, DaemonNotRunning
from hookd_client.messages import Event, Gap, Status

from hookd.dashboard import hookrows, past
from hookd.dashboard.waits import Waits
from hookd.events import journal_files

log = structlog.get_logger("hookd.dashboard")

_PAYLOAD_SHOWN = 32 << 10  # bytes of a payload (as JSON) sent to the page; past it, a preview
_LISTENER_QUEUE = 2_000
_RETRY = (0.2, 2.0)  # first and longest wait before reconnecting to the daemon
_SETTLE = 0.25  # seconds between two status requests, at the most
_LOST = (ConnectionLost, DaemonNotRunning, HookdError, OSError)
PAGE_GRACE = 3.0  # seconds the dashboard stays an approver after its last page closed


class Link:
    def __init__(self, socket: str | None, name: str, history: int = 500, poll: float = 2.0) -> None:
        self.socket = socket
        self.name = name
        self.history = history
        self.poll = poll
        self.events: deque[dict[str, Any]] = deque(maxlen=max(history, 1))
        self.status: dict[str, Any] | None = None
        self.stats: dict[str, Any] | None = None
        self.pending: dict[int, dict[str, Any]] = {}
        self.connected = False
        self.approver: AsyncApprover | None = None
        self.listeners: set[asyncio.Queue[tuple[str, Any] | None]] = set()
        self.ready = asyncio.Event()  # the first connection to the daemon is made (the event stream)
        self.approving = asyncio.Event()  # connected to the daemon as an approver (only while a page is open)
        self._approver_task: asyncio.Task[None] | None = None
        self._leaving: asyncio.TimerHandle | None = None
        self._dirty = asyncio.Event()  # calls happened: status and stats are asked for again soon
        self._tasks: list[asyncio.Task[None]] = []
        self._last_seq = 0
        self._client: AsyncClient | None = None
        self._waits = Waits()

    # ------------------------------------------------------------- running

    def start(self) -> None:
        self._tasks = [asyncio.ensure_future(t) for t in (self._follow_events(), self._poll())]

    async def close(self) -> None:
        if self._leaving is not None:
            self._leaving.cancel()
        if self._approver_task is not None:
            self._tasks.append(self._approver_task)
            self._approver_task = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._client is not None:
            await self._client.close()
        for queue in list(self.listeners):
            queue.put_nowait(None)

    # ------------------------------------------------------------ the page

    def snapshot(self) -> dict[str, Any]:
        return {
            "connected": self.connected,
            "approver": self.name,
            "approving": self.approving.is_set(),
            "status": self.status,
            "stats": self.stats,
            "events": list(self.events),
            "pending": list(self.pending.values()),
            "time": time.time(),
        }

    def listen(self) -> asyncio.Queue[tuple[str, Any] | None]:
        """A page opened its event stream: it gets the updates, and the dashboard is an approver while it is open."""
        queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()
        self.listeners.add(queue)
        self._pages_changed()
        return queue

    def unlisten(self, queue: asyncio.Queue[tuple[str, Any] | None]) -> None:
        self.listeners.discard(queue)
        self._pages_changed()

    def _pages_changed(self) -> None:
        """Be an approver while a page is open; stop :data:`PAGE_GRACE` seconds after the last one closed."""
        if self.listeners:
            if self._leaving is not None:
                self._leaving.cancel()
                self._leaving = None
            if self._approver_task is None or self._approver_task.done():
                self._approver_task = asyncio.ensure_future(self._approve())
        elif self._approver_task is not None and self._leaving is None:
            self._leaving = asyncio.get_running_loop().call_later(PAGE_GRACE, self._stop_approving)

    def _stop_approving(self) -> None:
        self._leaving = None
        if self.listeners or self._approver_task is None:
            return
        task, self._approver_task = self._approver_task, None
        log.info("no page is open: the dashboard is no longer an approver")
        task.cancel()

    async def answer(self, offer: int, decision: str, reason: str | None) -> None:
        approver = self.approver
        if approver is None:
            raise HookdError("not_running", "the dashboard is not connected to the daemon as an approver")
        await approver.answer(offer, decision, reason)  # type: ignore[arg-type]

    def _tell(self, kind: str, data: Any) -> None:
        for queue in list(self.listeners):
            if queue.qsize() >= _LISTENER_QUEUE:
                self.listeners.discard(queue)  # too far behind: its page reconnects and starts from a snapshot
                queue.put_nowait(None)
            else:
                queue.put_nowait((kind, data))

    def _set_connected(self, connected: bool) -> None:
        if connected != self.connected:
            self.connected = connected
            self._tell("daemon", {"connected": connected})

    # --------------------------------------------------------- the daemon

    async def _follow_events(self) -> None:
        wait = _RETRY[0]
        while True:
            try:
                client = await self._connected_client()
                status = await client.status()
                since = await self._journaled(status)
                async with client.subscribe(since=since) as stream:
                    self._set_connected(True)
                    self.ready.set()
                    wait = _RETRY[0]
                    async for item in stream:
                        if isinstance(item, Event):
                            self._event(item)
                        elif isinstance(item, Gap):
                            self._tell("gap", msgspec.to_builtins(item))
            except _LOST as exc:
                log.info("daemon stream lost; reconnecting", error=str(exc))
            self._set_connected(False)
            await asyncio.sleep(wait)
            wait = min(wait * 2, _RETRY[1])

    async def _journaled(self, status: Status) -> int:
        """Take the past the journal holds (from the next seq not shown, or the newest ``history``
        events at first); the seq the daemon's replay starts at: past the journal's newest line."""
        # What the daemon's memory alone would give: the next seq not shown, or its newest ``history``.
        since = self._last_seq + 1 if self._last_seq else max(1, status.events - self.history + 1)
        journal = status.journal
        if journal is None or not journal.enabled:
            return since
        path = journal.path or journal_files.default_path()
        try:
            events, last = await asyncio.to_thread(past.newest, path, self._last_seq + 1, self.history)
        except OSError as exc:
            log.warning("could not read the journal; the past starts at what the daemon keeps", path=path, error=str(exc))
            return since
        for ev in events:
            self._event(ev)
        return max(since, (last or 0) + 1)

    def _event(self, ev: Event) -> None:
        self._last_seq = ev.seq
        data = msgspec.to_builtins(ev)
        data.pop("id", None)
        payload = data.get("payload")
        if payload:
            shown = msgspec.json.encode(payload)
            if len(shown) > _PAYLOAD_SHOWN:
                data["payload"] = {"(preview)": shown[:2048].decode(errors="replace"), "(bytes)": len(shown)}
        self._waits.see(data)
        self.events.append(data)
        self._tell("event", data)
        if ev.kind != "internal":
            self._dirty.set()

    async def _approve(self) -> None:
        wait = _RETRY[0]
        while True:
            approver = AsyncApprover(self.socket, name=self.name, client="hookd-dashboard")
            try:
                await approver.open()
                self.approver = approver
                self.approving.set()
                log.info("a page is open: the dashboard is an approver")
                wait = _RETRY[0]
                while True:
                    item = await approver.next()
                    if isinstance(item, ApprovalOffer):
                        offer = _offer(item)
                        self.pending[item.offer] = offer
                        self._tell("offer", offer)
                    elif isinstance(item, ApprovalClosed):
                        self.pending.pop(item.approval.offer, None)
                        self._tell("closed", msgspec.to_builtins(item.approval))
            except _LOST as exc:
                log.info("approver connection lost; reconnecting", error=str(exc))
            finally:
                self.approver = None
                self.approving.clear()
                if self.pending:  # a new connection is offered what is still open
                    self.pending.clear()
                    self._tell("pending", [])
                await approver.close()
            await asyncio.sleep(wait)
            wait = min(wait * 2, _RETRY[1])

    async def _connected_client(self) -> AsyncClient:
        if self._client is None:
            self._client = AsyncClient(self.socket, name="hookd-dashboard")
        await self._client.connect()
        return self._client

    async def _poll(self) -> None:
        while True:
            try:
                client = await self._connected_client()
                status = msgspec.to_builtins(await client.status())
                if _changed(self.status, status):
                    self.status = status
                    self._tell("status", status)
                stats = await _stats(client)
                if stats is not None:
                    stats = hookrows.annotate(stats, await _hooks(client))
                if stats is not None and _changed(self.stats, stats):
                    self.stats = stats
                    self._tell("stats", stats)
            except _LOST as exc:
                log.debug("status poll failed", error=str(exc))
            # Every `poll` seconds, or soon after calls were made (at most a few times a second).
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.poll):
                    await self._dirty.wait()
            self._dirty.clear()
            await asyncio.sleep(_SETTLE)


def _offer(offer: ApprovalOffer) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(offer)
    data.pop("id", None)
    return data


def _changed(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    if old is None:
        return True
    ignore = ("uptime", "id", "since")
    return {k: v for k, v in old.items() if k not in ignore} != {k: v for k, v in new.items() if k not in ignore}


async def _stats(client: AsyncClient) -> dict[str, Any] | None:
    """The daemon's stats, on a daemon (and client) that have the request; None otherwise."""
    ask = getattr(client, "stats", None)
    if ask is None:
        return None
    try:
        reply = await ask()
    except HookdError as exc:
        if exc.code in ("bad_request", "not_found"):
            return None
        raise
    data: dict[str, Any] = msgspec.to_builtins(reply)
    data.pop("id", None)
    return data


async def _hooks(client: AsyncClient) -> dict[str, Any] | None:
    """The hooks the daemon has in force (every scope's), or None when it does not say."""
    try:
        reply = await client.list_hooks()
    except HookdError as exc:
        if exc.code in ("bad_request", "not_found"):
            return None
        raise
    data: dict[str, Any] = msgspec.to_builtins(reply)
    return data
