"""A persistent worker process spoken to in JSON lines (daemon side).

The minimal manager the plugin host needs: start a process in its own process
group, send one JSON request per line, match answers to requests by id (they
may come out of order), cap the answer line length, keep stderr for the log,
and kill the whole group on stop. A worker whose process exits fails every
pending request at once instead of leaving it to time out. Restart policy is
the caller's (see manager.HostHandle); this module only runs one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
from collections.abc import Callable
from typing import Any

import structlog

log = structlog.get_logger("hookd.plugins.worker")

LINE_CAP = 8 << 20
STDERR_LINE = 2000
STDERR_BURST = 200  # lines logged per window; a plugin printing in a loop must not flood the daemon's log
STDERR_WINDOW = 10.0


class WorkerGone(Exception):
    """The worker exited or was stopped before it answered."""


class Worker:
    def __init__(self, argv: list[str], env: dict[str, str], cwd: str, label: str, line_cap: int = LINE_CAP) -> None:
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.label = label
        self.line_cap = line_cap
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._tasks: list[asyncio.Task[None]] = []
        self.exit_reason = ""
        self.on_pid: Callable[[int, bool], None] | None = None  # (pid, alive): lets the daemon's shutdown kill it

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None and not self.exit_reason

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
            cwd=self.cwd,
            start_new_session=True,
            limit=self.line_cap,
        )
        if self.on_pid is not None:
            self.on_pid(self.proc.pid, True)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read_answers()), loop.create_task(self._read_stderr())]

    def _fail_all(self, reason: str) -> None:
        if not self.exit_reason:
            self.exit_reason = reason
        for fut in self.pending.values():
            if not fut.done():
                fut.set_exception(WorkerGone(self.exit_reason))
        self.pending.clear()

    async def _read_answers(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        stdout = self.proc.stdout
        reason = "exited"
        try:
            while True:
                try:
                    line = await stdout.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    reason = f"wrote an answer line over {self.line_cap} bytes"
                    self.kill(reason)
                    break
                if not line:
                    code = await self.proc.wait()
                    reason = f"exited with status {code}"
                    break
                try:
                    answer = json.loads(line)
                    rid = answer["id"]
                except (ValueError, KeyError, TypeError):
                    log.warning(
                        "plugin host wrote a line that is not an answer", worker=self.label, line=line[:200].decode("utf-8", "replace")
                    )
                    continue
                fut = self.pending.pop(rid, None) if isinstance(rid, int) else None
                if fut is not None and not fut.done():
                    fut.set_result(answer)
        finally:
            self._fail_all(reason)
            if self.proc.returncode is not None and self.on_pid is not None:
                self.on_pid(self.proc.pid, False)  # its pid may be reused: never kill that group later

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        stderr = self.proc.stderr
        loop = asyncio.get_running_loop()
        window_end, logged, dropped = 0.0, 0, 0
        while True:
            try:
                line = await stderr.readline()
            except (ValueError, asyncio.LimitOverrunError):
                continue
            if not line:
                return
            now = loop.time()
            if now >= window_end:
                if dropped:
                    log.warning("plugin output dropped", worker=self.label, lines=dropped, window=STDERR_WINDOW)
                window_end, logged, dropped = now + STDERR_WINDOW, 0, 0
            if logged >= STDERR_BURST:
                dropped += 1
                continue
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                logged += 1
                log.info("plugin output", worker=self.label, line=text[:STDERR_LINE])

    async def call(self, request: dict[str, Any], rid: int | None = None) -> dict[str, Any]:
        """Send one request (``id`` is set here unless given) and wait for its answer. Raises WorkerGone."""
        if not self.alive:
            raise WorkerGone(self.exit_reason or "not running")
        assert self.proc is not None and self.proc.stdin is not None
        rid = next(self._ids) if rid is None else rid
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[rid] = fut
        try:
            self.proc.stdin.write((json.dumps({**request, "id": rid}, separators=(",", ":")) + "\n").encode())
            await self.proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            self.pending.pop(rid, None)
            raise WorkerGone(f"stdin closed: {exc}") from None
        try:
            return await fut
        finally:
            self.pending.pop(rid, None)

    def kill(self, reason: str = "killed") -> None:
        """Kill the process group now; pending requests fail with ``reason``."""
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            if self.on_pid is not None:
                self.on_pid(self.proc.pid, False)
        self._fail_all(reason)

    async def stop(self, grace: float = 2.0) -> None:
        """Close stdin (the host exits when it has answered what it has), then kill what is left."""
        if self.proc is None:
            return
        if self.proc.returncode is None and self.proc.stdin is not None:
            with contextlib.suppress(Exception):
                self.proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), grace)
        self.kill()
        with contextlib.suppress(ProcessLookupError):
            await self.proc.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(task, 1)
