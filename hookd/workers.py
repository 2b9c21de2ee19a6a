"""Warm worker processes that answer requests as JSON lines (docs/protocol.md, "Worker protocol").

A :class:`Worker` owns one long-running command. It is started lazily by the
first request, gets one JSON object per line on stdin (``{"id": N, ...}``) and
answers one JSON object per line on stdout carrying the same ``id``, in any
order. At most ``concurrency`` requests are outstanding; the rest wait their
turn. Nothing here knows about hooks: the hook runner
(:mod:`hookd.runners.persistent`) and other daemon code build on ``request``.

Failure handling, in one place:
- a request that is abandoned (its deadline passed, or it was cancelled) while
  the worker holds it kills the worker's process group: a worker that missed a
  deadline cannot be trusted with the next request;
- a line that is not a JSON object with an integer ``id``, or is longer than
  the line cap, kills the worker (the stream can no longer be trusted);
- whenever the process goes, every request it held fails with its exit status
  and the tail of its stderr;
- the next request restarts it, after an exponential backoff once it has
  failed more than once in a row; after ``max_failures`` failures in a row
  with no good answer in between, the worker is marked failed and requests
  fail at once until it is reset (a reload of its hook).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from hookd_client.messages import WorkerInfo

from .runners import contain
from .runners.command import HookFailure, ProcessGroups

log = structlog.get_logger("hookd.workers")

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder().decode
_STDERR_LINES = 1000  # stderr lines of one worker run copied to the daemon's log


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


class _Process(asyncio.SubprocessProtocol):
    """One run of a worker's command: its pipes, its outstanding requests, how it ended."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.transport: asyncio.SubprocessTransport | None = None
        self.stdin: asyncio.WriteTransport | None = None
        self.pid = 0
        self.tag = ""  # its run mark: the tree kill finds descendants that left the group
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.buf = bytearray()
        self.stderr = bytearray()
        self.partial = bytearray()
        self.logged = 0
        self.alive = True  # False once killed, stopped or exited: take no new requests
        self.reason = ""  # why the daemon killed it; "" if it went by itself
        self.deliberate = False  # stopped by the daemon (reload, dispose, shutdown): not a failure
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._exit_timer: asyncio.TimerHandle | None = None

    # ---------------------------------------------------------- protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.pid = self.transport.get_pid()  # type: ignore[union-attr]
        self.stdin = self.transport.get_pipe_transport(0)  # type: ignore[union-attr, assignment]

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._stdout(data)
        else:
            self._stderr_data(data)

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
            if line.strip():
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
            reply = None
        rid = reply.get("id") if isinstance(reply, dict) else None
        if not isinstance(rid, int) or isinstance(rid, bool):
            self.kill(f'wrote a line that is not a JSON object with an integer "id": {_tail(line, 200)!r}')
            return
        future = self.pending.pop(rid, None)
        if future is None:
            log.warning("worker answered an unknown id; ignored", worker=self.worker.name, id=rid)
            return
        if not future.done():
            future.set_result(reply)
        self.worker._served()

    # --------------------------------------------------------- lifecycle

    def write(self, rid: int, message: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        if self.finished.done():  # it died while it was being started
            raise WorkerFailure("error", f"worker {self.worker.name!r} exited at start; stderr: {_tail(self.stderr)}")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[rid] = future
        assert self.stdin is not None
        self.stdin.write(_encode({"id": rid, **message}) + b"\n")
        return future

    def kill(self, reason: str) -> None:
        """Kill the whole group now; outstanding requests fail with ``reason``."""
        if self.alive:
            self.alive = False
            self.reason = reason
            log.error("killing worker", worker=self.worker.name, pid=self.pid, reason=reason)
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
            await asyncio.wait_for(asyncio.shield(self.finished), grace)
        self.kill_tree()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self.finished), grace + self.worker.limits.exit_grace)

    def _finish(self) -> None:
        if self.finished.done():
            return
        if self._exit_timer is not None:
            self._exit_timer.cancel()
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
        self.worker._gone(self, message, code)


class Worker:
    """One warm command, started on first use. Reusable by any daemon code that speaks the worker protocol."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        concurrency: int = 1,
        limits: WorkerLimits | None = None,
        groups: ProcessGroups | None = None,
        on_failed: Callable[[Worker], None] | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.concurrency = concurrency
        self.limits = limits or WorkerLimits()
        self.groups = groups
        self.containment = groups.containment if groups is not None else contain.default()
        self.on_failed = on_failed
        self.failures = 0  # in a row, since the last good answer
        self.restarts = 0
        self.served = 0
        self.error = ""
        self.failed = False
        self.closed = False
        self.waiting = 0
        self._proc: _Process | None = None
        self._slots = asyncio.Semaphore(concurrency)
        self._start_lock = asyncio.Lock()
        self._not_before = 0.0
        self._ids = itertools.count(1)
        self._runs: set[_Process] = set()  # every process not yet finished, for stop()

    # ------------------------------------------------------------ requests

    async def request(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """Send ``message`` (an ``id`` is added) and return the worker's answer object.

        Raises WorkerFailure when there is no answer: ``timeout`` when ``timeout``
        seconds pass (the worker is then killed), ``error`` otherwise. An answer
        that reports an error (``{"id", "error"}``) is returned, not raised.
        """
        if timeout is None:
            return await self._request(message)
        try:
            async with asyncio.timeout(timeout):
                return await self._request(message)
        except TimeoutError:
            raise WorkerFailure("timeout", f"no answer from worker {self.name!r} within {timeout:g} s") from None

    async def _request(self, message: dict[str, Any]) -> dict[str, Any]:
        if self.failed:
            raise WorkerFailed("error", f"worker {self.name!r} is marked failed after {self.failures} failures in a row: {self.error}")
        if self.closed:
            raise WorkerFailure("error", f"worker {self.name!r} was stopped")
        self.waiting += 1
        try:
            await self._slots.acquire()
        finally:
            self.waiting -= 1
        try:
            proc = self._proc
            if proc is None or not proc.alive:
                proc = await self._start()
            rid = next(self._ids)
            future = proc.write(rid, message)
            try:
                return await future
            except asyncio.CancelledError:
                if rid in proc.pending:
                    proc.pending.pop(rid, None)
                    proc.kill(f"did not answer request {rid} in time")
                raise
        finally:
            self._slots.release()

    # ----------------------------------------------------------- lifecycle

    async def _start(self) -> _Process:
        async with self._start_lock:
            proc = self._proc
            if proc is not None and proc.alive:
                return proc
            if self.failed:
                raise WorkerFailed("error", f"worker {self.name!r} is marked failed after {self.failures} failures in a row: {self.error}")
            if self.closed:
                raise WorkerFailure("error", f"worker {self.name!r} is stopped: {self.error}")
            delay = self._not_before - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            # Shielded: a caller whose deadline passes mid-start must not orphan the new process.
            return await asyncio.shield(asyncio.ensure_future(self._spawn()))

    async def _spawn(self) -> _Process:
        loop = asyncio.get_running_loop()
        env, tag = self.containment.mark(self.env)
        try:
            _, proc = await loop.subprocess_exec(
                lambda: _Process(self),
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=self.cwd,
                start_new_session=True,
            )
        except OSError as exc:
            what = "not found" if isinstance(exc, FileNotFoundError) else "not executable" if isinstance(exc, PermissionError) else str(exc)
            message = f"could not start {self.argv[0]!r} (cwd {self.cwd}): {what}"
            self._failure(message)
            raise WorkerFailure("error", message) from None
        proc.tag = tag
        if self.groups is not None:
            self.groups.started(proc.pid, tag)
        if self._proc is not None:
            self.restarts += 1
        self._proc = proc
        self._runs.add(proc)
        log.info("worker started", worker=self.name, pid=proc.pid, restarts=self.restarts)
        if self.closed:  # stopped while it was starting
            await proc.stop(self.limits.stop_grace)
        return proc

    def _served(self) -> None:
        self.served += 1
        self.failures = 0

    def _gone(self, proc: _Process, message: str, code: int | None) -> None:
        self._runs.discard(proc)
        if self.groups is not None:
            self.groups.finished(proc.pid)
        if proc.deliberate:
            log.info("worker stopped", worker=self.name, pid=proc.pid, status=code)
            return
        log.warning("worker gone", worker=self.name, pid=proc.pid, status=code, error=message)
        self._failure(message)

    def _failure(self, message: str) -> None:
        self.failures += 1
        self.error = message
        limits = self.limits
        if self.failures >= limits.max_failures and not self.failed:
            self.failed = True
            log.error(
                "worker marked failed; it will not be restarted until its hook is reloaded",
                worker=self.name,
                failures=self.failures,
                error=message,
            )
            if self.on_failed is not None:
                self.on_failed(self)
        elif self.failures > 1:
            self._not_before = time.monotonic() + min(limits.backoff_base * 2 ** (self.failures - 2), limits.backoff_max)

    async def stop(self) -> None:
        """Stop every process of this worker; later requests fail."""
        self.closed = True
        runs = list(self._runs)
        if runs:
            await asyncio.gather(*(p.stop(self.limits.stop_grace) for p in runs))

    # ---------------------------------------------------------------- info

    @property
    def pid(self) -> int:
        proc = self._proc
        return proc.pid if proc is not None and proc.alive else 0

    def info(self) -> WorkerInfo:
        proc = self._proc
        if self.failed:
            state = "failed"
        elif self.closed:
            state = "stopped"
        elif proc is not None and proc.alive:
            state = "running"
        elif self._not_before > time.monotonic():
            state = "backoff"
        else:
            state = "idle"
        outstanding = len(proc.pending) if proc is not None else 0
        return WorkerInfo(self.name, state, self.pid, self.restarts, self.failures, outstanding, self.waiting, self.served, self.error)


class WorkerPool:
    """Workers by key, so callers share one worker per key and stop the ones no longer wanted."""

    def __init__(self) -> None:
        self.workers: dict[Hashable, Worker] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def get(self, key: Hashable, make: Callable[[], Worker]) -> Worker:
        worker = self.workers.get(key)
        if worker is None:
            worker = self.workers[key] = make()
        return worker

    def discard(self, key: Hashable) -> None:
        """Forget the worker for ``key`` and stop it in the background."""
        worker = self.workers.pop(key, None)
        if worker is not None:
            self._stop_later(worker)

    def keep_only(self, keys: Iterable[Hashable]) -> None:
        """Stop every worker whose key is not in ``keys``."""
        wanted = set(keys)
        for key in [k for k in self.workers if k not in wanted]:
            self.discard(key)

    def _stop_later(self, worker: Worker) -> None:
        worker.closed = True
        task = asyncio.get_running_loop().create_task(worker.stop())
        self._stopping.add(task)
        task.add_done_callback(self._stopping.discard)

    async def stop_all(self) -> None:
        workers = list(self.workers.values())
        self.workers.clear()
        await asyncio.gather(*(w.stop() for w in workers), *list(self._stopping), return_exceptions=True)

    def info(self) -> list[WorkerInfo]:
        return [w.info() for w in self.workers.values()]
