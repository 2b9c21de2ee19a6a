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
import itertools
import time
from collections import deque
from collections.abc import Callable, Coroutine, Hashable, Iterable
from typing import Any, TypeVar

import structlog
from hookd_client.messages import WorkerInfo

from hookd.runners import contain
from hookd.runners.command import ProcessGroups
from hookd.runners.worker_process import WorkerFailed, WorkerFailure, WorkerLimits, WorkerRun

__all__ = ["Worker", "WorkerFailed", "WorkerFailure", "WorkerLimits", "WorkerPool"]

log = structlog.get_logger("hookd.workers")
T = TypeVar("T")


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
        self._proc: WorkerRun | None = None
        self._slots = _Slots(concurrency)
        self._start_lock = asyncio.Lock()
        self._not_before = 0.0
        self._ids = itertools.count(1)
        self._runs: set[WorkerRun] = set()  # every process not yet finished, for stop()

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
            await self._slots.take()
        finally:
            self.waiting -= 1
        try:
            proc = self._proc
            if proc is None or not proc.alive:
                proc = await self._start()
            rid = next(self._ids)
            future: asyncio.Future[dict[str, Any]] = proc.loop.create_future()
            proc.write(rid, {"id": rid, **message}, future)
            try:
                return await future
            except asyncio.CancelledError:
                proc.abandon(rid)
                raise
        finally:
            self._slots.give()

    def send(self, message: dict[str, Any], timeout: float, then: Callable[[dict[str, Any]], T]) -> Coroutine[Any, Any, T] | None:
        """:meth:`request` at its cheapest, when it can go at once: the worker is running and has a
        free slot. The request is written now (``message`` gets its ``id`` in place) and the returned
        coroutine gives ``then(answer)``; None: nothing was sent, use :meth:`request`.

        ``timeout`` is watched by the worker's one deadline timer rather than a timer per request:
        when it passes, the request fails with a ``timeout`` WorkerFailure and the worker is killed.
        A caller cancelled while it waits kills the worker too, as with :meth:`request`."""
        proc = self._proc
        if proc is None or not proc.alive or self.failed or self.closed or not self._slots.try_take():
            return None
        try:
            rid = next(self._ids)
            future: asyncio.Future[dict[str, Any]] = proc.loop.create_future()
            proc.write(rid, message, future, timeout)
        except BaseException:
            self._slots.give()
            raise
        return self._answer(proc, rid, future, then)

    def call(self, message: dict[str, Any], timeout: float, done: Callable[[dict[str, Any] | None, WorkerFailure | None], None]) -> bool:
        """:meth:`send` without a coroutine or a future: ``done(answer, None)`` or ``done(None,
        failure)`` is called once, from the event loop's read of the answer (or the deadline
        timer, or the process's end), with the slot already given back. False: nothing was sent
        (``done`` is never called), use :meth:`request`. ``done`` must not raise; what it raises
        is logged and dropped."""
        proc = self._proc
        if proc is None or not proc.alive or self.failed or self.closed or not self._slots.try_take():
            return False
        try:
            proc.write(next(self._ids), message, _Callback(self._slots, done, self.name), timeout)
        except Exception:  # e.g. a message JSON cannot carry: request() fails it the usual way
            self._slots.give()
            return False
        return True

    async def _answer(self, proc: WorkerRun, rid: int, future: asyncio.Future[dict[str, Any]], then: Callable[[dict[str, Any]], T]) -> T:
        try:
            return then(await future)
        except asyncio.CancelledError:
            proc.abandon(rid)
            raise
        finally:
            self._slots.give()

    # ----------------------------------------------------------- lifecycle

    async def _start(self) -> WorkerRun:
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

    async def _spawn(self) -> WorkerRun:
        loop = asyncio.get_running_loop()
        env, tag = self.containment.mark(self.env)
        try:
            with self.containment.entering(tag) as enter:
                _, proc = await loop.subprocess_exec(
                    lambda: WorkerRun(self),
                    *self.argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env=env,
                    cwd=self.cwd,
                    start_new_session=True,
                    preexec_fn=enter,
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

    def run_ended(self, proc: WorkerRun, message: str, code: int | None) -> None:
        self._runs.discard(proc)
        if self.groups is not None:
            self.groups.finished(proc.pid)
        if proc.deliberate:
            log.info("worker stopped", worker=self.name, pid=proc.pid, status=code)
            return
        log.warning("worker gone", worker=self.name, pid=proc.pid, status=code, error=message)
        if not proc.counted:
            self._failure(message)
        elif proc is self._proc and self.failures:
            self.error = message  # the whole account of the failure counted at the kill, its stderr with it

    def run_failed(self, proc: WorkerRun, message: str) -> None:
        """``proc`` failed (it is being killed): the failure counts from now."""
        proc.counted = True
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
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The event loop its running process belongs to; None when it is not running."""
        proc = self._proc
        return proc.loop if proc is not None and proc.alive else None

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


class _Slots:
    """At most ``n`` requests outstanding; the rest wait their turn, first come first served.
    (asyncio.Semaphore, plus a take that never waits, for :meth:`Worker.send`.)"""

    __slots__ = ("free", "queue")

    def __init__(self, n: int) -> None:
        self.free = n
        self.queue: deque[asyncio.Future[None]] = deque()

    def try_take(self) -> bool:
        if self.free > 0 and not self.queue:
            self.free -= 1
            return True
        return False

    async def take(self) -> None:
        if self.try_take():
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give()  # handed a slot as it was cancelled: pass it on
            elif turn in self.queue:
                self.queue.remove(turn)
            raise

    def give(self) -> None:
        queue = self.queue
        while queue:
            turn = queue.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        self.free += 1


class _Callback:
    """Where an answer goes for :meth:`Worker.call`: in a worker run's ``pending`` in place of a
    future (the same ``done``, ``set_result`` and ``set_exception``), calling back at once."""

    __slots__ = ("_done", "_fired", "_name", "_slots")

    def __init__(self, slots: _Slots, done: Callable[[dict[str, Any] | None, WorkerFailure | None], None], name: str) -> None:
        self._slots = slots
        self._done = done
        self._name = name
        self._fired = False

    def done(self) -> bool:
        return self._fired

    def set_result(self, answer: dict[str, Any]) -> None:
        if not self._fired:
            self._fired = True
            self._slots.give()
            try:
                self._done(answer, None)
            except Exception:  # the worker's stream handling must go on whatever a caller does
                log.exception("a worker answer's callback failed", worker=self._name)

    def set_exception(self, failure: BaseException) -> None:
        if not self._fired:
            self._fired = True
            self._slots.give()
            try:
                self._done(None, failure if isinstance(failure, WorkerFailure) else WorkerFailure("error", repr(failure)))
            except Exception:
                log.exception("a worker answer's callback failed", worker=self._name)


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
