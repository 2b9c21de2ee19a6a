"""One run of a warm worker's command: its pipes, its outstanding requests, how it ended.

The protocol side of :class:`hookd.runners.workers.Worker` (docs/protocol.md, "Worker
protocol"): answer lines are split and matched to requests by ``id``, stderr
goes to the daemon's log under a budget, and whenever the process goes every
request it held fails with why. Split from hookd/runners/workers.py, which owns the
lifecycle (start, restart, backoff, failed state) and re-exports these names.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog

from hookd.core.hooks import HookFailure

if TYPE_CHECKING:
    from hookd.runners.contain import Containment

log = structlog.get_logger("hookd.workers")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
_STDERR_LINES = 1000  # stderr lines of one worker run copied to the daemon's log


class Answer(Protocol):
    """Where a request's answer goes: an asyncio future, or a callback that looks like one."""

    def done(self) -> bool: ...
    def set_result(self, result: dict[str, Any], /) -> None: ...
    def set_exception(self, exception: BaseException, /) -> None: ...


class Worker(Protocol):
    """The worker a run belongs to (hookd/runners/workers.py): its name and limits, its counts,
    its containment, and what it does when the run ends."""

    name: str
    limits: WorkerLimits
    served: int
    failures: int
    containment: Containment

    def run_ended(self, proc: WorkerRun, message: str, code: int | None) -> None: ...


class WorkerFailure(HookFailure):
    """A request the worker did not answer: ``code`` is ``timeout`` or ``error``."""


class WorkerFailed(WorkerFailure):
    """The worker is marked failed (it gave up after repeated crashes): nothing was sent."""


@dataclass(frozen=True, slots=True)
class WorkerLimits:
    line_cap: int = 1 << 20  # bytes in one answer line, newline excluded
    stderr_cap: int = 64 * 1024  # stderr tail kept for errors and the log
    max_failures: int = 5  # failures in a row before the worker is marked failed
    backoff_base: float = 0.1  # delay before the 2nd restart in a row; doubles after
    backoff_max: float = 10.0
    stop_grace: float = 1.0  # after EOF on stdin, before the group is killed
    exit_grace: float = 1.0  # after the leader exits, before its pipes are given up on


def _tail(data: bytes | bytearray, limit: int = 2000) -> str:
    text = bytes(data).decode("utf-8", "replace").strip()
    return text if len(text) <= limit else "..." + text[-limit:]


class WorkerRun(asyncio.SubprocessProtocol):
    """One run of a worker's command: its pipes, its outstanding requests, how it ended."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.transport: asyncio.SubprocessTransport | None = None
        self.stdin: asyncio.WriteTransport | None = None
        self.pid = 0
        self.tag = ""  # its run mark: the tree kill finds descendants that left the group
        self.pending: dict[int, Answer] = {}
        self.buf = bytearray()
        self._line_max = worker.limits.line_cap + 1  # an answer line with its newline
        self.stderr = bytearray()
        self.partial = bytearray()
        self.logged = 0
        self.alive = True  # False once killed, stopped or exited: take no new requests
        self.reason = ""  # why the daemon killed it; "" if it went by itself
        self.deliberate = False  # stopped by the daemon (reload, dispose, shutdown): not a failure
        self.counted = False  # its failure already counted, when it was killed
        self.loop = asyncio.get_running_loop()
        self.finished: asyncio.Future[None] = self.loop.create_future()
        self._exit_timer: asyncio.TimerHandle | None = None
        # Deadlines of the requests sent with one (rid -> (when, seconds)), watched by one timer:
        # an answered request touches no timer, so a busy worker arms one per deadline span, not
        # one per request.
        self._deadlines: dict[int, tuple[float, float]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    # ---------------------------------------------------------- protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.pid = self.transport.get_pid()  # type: ignore[union-attr]
        self.stdin = self.transport.get_pipe_transport(0)  # type: ignore[union-attr, assignment]

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd != 1:
            self._stderr_data(data)
        elif not self.buf and data.find(b"\n") == len(data) - 1 and len(data) <= self._line_max:
            self._answer(data)  # the common case: exactly one whole answer line in one read
        else:
            self._stdout(data)

    def process_exited(self) -> None:
        # The leader is gone; its pipes may still deliver data (or be held open by
        # grandchildren, which go with the group). Requests fail once the pipes close.
        self.alive = False
        self.kill_tree()
        self._exit_timer = asyncio.get_running_loop().call_later(self.worker.limits.exit_grace, self._finish)

    def connection_lost(self, exc: Exception | None) -> None:
        self._finish()

    # ------------------------------------------------------------ stderr

    def _stderr_data(self, data: bytes) -> None:
        # A worker's stderr is its log: lines go to the daemon's log (up to a
        # budget, so a chatty worker cannot flood it) and the tail is kept for errors.
        cap = self.worker.limits.stderr_cap
        self.stderr += data
        if self.logged < _STDERR_LINES:
            self.partial += data
            *lines, rest = self.partial.split(b"\n")
            self.partial = rest[-cap:]
            for line in lines:
                if self.logged >= _STDERR_LINES:
                    log.info("worker stderr: further lines are not logged", worker=self.worker.name, pid=self.pid)
                    self.partial.clear()
                    break
                self.logged += 1
                log.info("worker stderr", worker=self.worker.name, pid=self.pid, line=_tail(line, 1000))
        if len(self.stderr) > cap:
            del self.stderr[: len(self.stderr) - cap]

    # ------------------------------------------------------------ stdout

    def _stdout(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        cap = self.worker.limits.line_cap
        start = 0
        while True:
            end = buf.find(b"\n", start)
            if end < 0:
                break
            if end - start > cap:
                self.kill(f"wrote an answer line over the cap of {cap} bytes")
                return
            line = bytes(buf[start:end])
            start = end + 1
            self._answer(line)
            if not self.alive:
                return
        if start:
            del buf[:start]
        if len(buf) > cap:
            self.kill(f"wrote an answer line over the cap of {cap} bytes")

    def _answer(self, line: bytes) -> None:
        try:
            reply = _decode(line)
        except (msgspec.DecodeError, RecursionError):
            if not line.strip():
                return  # a blank line: nothing to answer
            reply = None
        if type(reply) is not dict or type(rid := reply.get("id")) is not int:
            self.kill(f'wrote a line that is not a JSON object with an integer "id": {_tail(line, 200)!r}')
            return
        future = self.pending.pop(rid, None)
        if future is None:
            log.warning("worker answered an unknown id; ignored", worker=self.worker.name, id=rid)
            return
        if self._deadlines:
            self._deadlines.pop(rid, None)
        if not future.done():
            future.set_result(reply)
        worker = self.worker
        worker.served += 1
        worker.failures = 0

    # --------------------------------------------------------- lifecycle

    def write(self, rid: int, message: dict[str, Any], answer: Answer, timeout: float | None = None) -> None:
        """Send ``message`` as request ``rid`` (its ``id`` is set in place); its answer goes to
        ``answer``. With ``timeout``, a request not answered within that many seconds fails with a
        ``timeout`` WorkerFailure and the worker is killed, as it would be if its awaiting caller
        were cancelled."""
        if self.finished.done():  # it died while it was being started
            raise WorkerFailure("error", f"worker {self.worker.name!r} exited at start; stderr: {_tail(self.stderr)}")
        message["id"] = rid
        line = _encode(message) + b"\n"  # before it is pending: a message that cannot be sent leaves nothing behind
        self.pending[rid] = answer
        try:
            assert self.stdin is not None
            self.stdin.write(line)
            if timeout is not None:
                when = self.loop.time() + timeout
                self._deadlines[rid] = (when, timeout)
                if self._timer is None or when < self._timer_at:
                    self._arm(when)
        except BaseException:
            # Not sent, as far as the caller knows: its answer must never be called later (a
            # warm decide that fell back to the general path would let its worker go twice).
            self.pending.pop(rid, None)
            self._deadlines.pop(rid, None)
            raise

    def abandon(self, rid: int) -> None:
        """The caller of request ``rid`` gave up on it (cancelled): if the worker still holds it,
        kill the worker, which cannot be trusted with the next request."""
        self._deadlines.pop(rid, None)
        if self.pending.pop(rid, None) is not None:
            self.kill(f"did not answer request {rid} in time")

    def _arm(self, when: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer_at = when
        self._timer = self.loop.call_at(when, self._expire)

    def _expire(self) -> None:
        """The deadline timer: fail the requests whose time is up (and kill the worker), or sleep
        again until the earliest deadline left."""
        self._timer = None
        deadlines = self._deadlines
        if not deadlines:
            return
        now = self.loop.time()
        late = [rid for rid, (when, _) in deadlines.items() if when <= now]
        if not late:
            self._arm(max(min(when for when, _ in deadlines.values()), now + 0.001))
            return
        for rid in late:
            _, seconds = deadlines.pop(rid)
            future = self.pending.pop(rid, None)
            if future is not None and not future.done():
                future.set_exception(WorkerFailure("timeout", f"no answer within {seconds:g} s"))
        self.kill(f"did not answer request {late[0]} in time")  # the others it held fail as it goes

    def kill(self, reason: str) -> None:
        """Kill the whole group now; outstanding requests fail with ``reason``."""
        if self.alive:
            self.alive = False
            self.reason = reason
            log.error("killing worker", worker=self.worker.name, pid=self.pid, reason=reason)
            # The failure is counted now, not when the run is reaped: a replacement may answer first,
            # and a failure counted after that answer would show a healthy worker as failing.
            message = f"the worker {reason}; it was killed"
            stderr = _tail(self.stderr)  # what it wrote so far; the reap adds anything later
            self.worker.run_failed(self, f"{message}; stderr: {stderr}" if stderr else message)
        self.kill_tree()

    def kill_tree(self) -> None:
        """SIGKILL the group and every process of this run, wherever it moved."""
        if self.pid > 0:
            self.worker.containment.kill(self.pid, self.tag or None)

    async def stop(self, grace: float) -> None:
        """EOF on stdin, then the group is killed after ``grace`` if the worker lingers."""
        self.deliberate = True
        self.alive = False
        if self.stdin is not None:
            with contextlib.suppress(Exception):
                self.stdin.close()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace):
                await asyncio.shield(self.finished)
        self.kill_tree()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace + self.worker.limits.exit_grace):
                await asyncio.shield(self.finished)

    def _finish(self) -> None:
        if self.finished.done():
            return
        if self._exit_timer is not None:
            self._exit_timer.cancel()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._deadlines.clear()
        self.alive = False
        # Descendants that outlived the leader go with it, in its group or not.
        self.kill_tree()
        code = self.transport.get_returncode() if self.transport is not None else None
        if self.transport is not None:
            self.transport.close()
        stderr = _tail(self.stderr)
        if self.deliberate:
            message = "the worker was stopped"
        elif self.reason:
            message = f"the worker {self.reason}; it was killed"
        else:
            message = f"the worker exited with status {code}"
        if stderr:
            message += f"; stderr: {stderr}"
        pending, self.pending = self.pending, {}
        for future in pending.values():
            if not future.done():
                future.set_exception(WorkerFailure("error", message))
        self.finished.set_result(None)
        self.worker.run_ended(self, message, code)
