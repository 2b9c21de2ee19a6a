"""Command hooks (seed 000, 执行机制): one subprocess per call.

The payload goes in as JSON on stdin; a decision hook answers one JSON
HookDecision on stdout (empty stdout: abstain). The process runs in its own
process group so that a timeout, or the daemon stopping, kills everything it
started (TERM, then KILL after a grace period). Output is read with caps, so a
hook that floods stdout costs bounded memory and is reported, not buffered.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from hookd_client.messages import Decision

from ..registry import CallContext, Hook
from . import spawn

log = structlog.get_logger("hookd.hooks")

KILL_GRACE = 1.0
_CHUNK = 64 * 1024
_json = msgspec.json.Encoder()
_decision = msgspec.json.Decoder(Decision)


class HookFailure(Exception):
    """A hook failed in a way the chain reports: ``code`` is ``error`` or ``timeout``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Limits:
    stdout_cap: int = 1 << 20
    stderr_cap: int = 64 * 1024
    # A burst of emits must not fork-bomb the machine: past this many live hook
    # processes, further spawns wait their turn (inside their own timeout).
    max_processes: int = 64


def _tail(data: bytes, limit: int = 2000) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def start_failure(exc: OSError, argv: list[str], cwd: str) -> HookFailure:
    """What to say when a hook's process cannot be started."""
    if isinstance(exc, FileNotFoundError):
        if not os.path.isdir(cwd):
            return HookFailure("error", f"working directory does not exist: {cwd} (the hook's cwd)")
        return HookFailure("error", f"command not found: {argv[0]!r} (cwd {cwd})")
    if isinstance(exc, PermissionError):
        return HookFailure("error", f"command not executable: {argv[0]!r} (cwd {cwd})")
    return HookFailure("error", f"could not start {argv[0]!r}: {exc}")


class ProcessGroups:
    """Every live hook process group, so shutdown can kill what is left."""

    def __init__(self) -> None:
        self.live: set[int] = set()
        self._reapers: set[asyncio.Task[None]] = set()

    def kill(self, pgid: int, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)

    def terminate_later(self, proc: asyncio.subprocess.Process, grace: float = KILL_GRACE) -> None:
        """TERM the group now and KILL it after ``grace`` unless it is gone, without blocking the caller."""
        self.kill(proc.pid, signal.SIGTERM)
        task = asyncio.get_running_loop().create_task(self._reap(proc, grace))
        self._reapers.add(task)
        task.add_done_callback(self._reapers.discard)

    async def _reap(self, proc: asyncio.subprocess.Process, grace: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace)
        # The leader may be gone while grandchildren linger in its group.
        self.kill(proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            await proc.wait()
        self.live.discard(proc.pid)

    async def settle(self) -> None:
        """Wait until every TERM-then-KILL reaper has finished."""
        while self._reapers:
            await asyncio.gather(*self._reapers, return_exceptions=True)

    def kill_all(self) -> None:
        for pgid in list(self.live):
            self.kill(pgid, signal.SIGKILL)
        self.live.clear()


class CommandRunner:
    """Runs a hook's command. One instance serves every command hook of the daemon."""

    def __init__(self, limits: Limits | None = None, groups: ProcessGroups | None = None) -> None:
        self.limits = limits or Limits()
        self.groups = groups or ProcessGroups()
        self.base_env = dict(os.environ)
        self.spawned = 0
        self._slots = asyncio.Semaphore(self.limits.max_processes)

    def environment(self, hook: Hook, ctx: CallContext) -> dict[str, str]:
        env = dict(self.base_env)
        if hook.spec is not None:
            env.update(hook.spec.env)
        env["HOOKD_POINT"] = ctx.point
        env["HOOKD_SESSION_ID"] = ctx.session or ""
        env["HOOKD_PROJECT_DIR"] = ctx.project or ""
        env["HOOKD_HOOK_NAME"] = hook.name
        return env

    def working_dir(self, hook: Hook, ctx: CallContext) -> str:
        """The hook's ``cwd`` (relative to the default), else the project directory for project
        hooks, the home directory for global hooks, the call's project (if any) for session hooks."""
        home = os.path.expanduser("~")
        if hook.scope == "project":
            base = hook.owner
        elif hook.scope == "session" and ctx.project and os.path.isdir(ctx.project):
            base = ctx.project
        else:
            base = home
        cwd = hook.spec.cwd if hook.spec is not None else None
        if not cwd:
            return base
        return os.path.normpath(os.path.join(base, os.path.expanduser(cwd)))

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        spec = hook.spec
        assert spec is not None, "a command hook always has a spec"
        stdout, stderr, code = await self.run(
            [spec.command, *spec.args], _json.encode(payload), self.environment(hook, ctx), self.working_dir(hook, ctx)
        )
        if code != 0:
            detail = f"; stderr: {_tail(stderr)}" if stderr.strip() else ""
            raise HookFailure("error", f"{spec.command} exited with status {code}{detail}")
        if stderr.strip():
            # A working hook's diagnostics belong in the daemon's log, not in the outcome.
            log.info("hook stderr", hook=hook.name, scope=hook.scope, source=hook.source, point=ctx.point, stderr=_tail(stderr))
        if hook.type == "observer" or not stdout.strip():
            return None
        try:
            return _decision.decode(stdout)
        except msgspec.ValidationError as exc:
            raise HookFailure("error", f"stdout is not a HookDecision: {exc}: {_tail(stdout, 300)}") from None
        except msgspec.DecodeError as exc:
            raise HookFailure("error", f"stdout is not valid JSON ({exc}): {_tail(stdout, 300)}") from None

    async def run(self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str) -> tuple[bytes, bytes, int]:
        """Run argv to completion; returns (stdout, stderr, exit status).

        Cancellation (the engine's timeout) kills the process group.
        """
        async with self._slots:
            return await self._run(argv, stdin, env, cwd)

    async def _run(self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str) -> tuple[bytes, bytes, int]:
        if spawn.AVAILABLE:
            return await self._run_pidfd(argv, stdin, env, cwd)
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise start_failure(exc, argv, cwd) from None
        self.spawned += 1
        self.groups.live.add(proc.pid)
        finished = False
        try:
            results = await asyncio.gather(
                self._feed(proc, stdin),
                self._read(proc.stdout, self.limits.stdout_cap, "stdout"),
                self._read(proc.stderr, self.limits.stderr_cap, None),
            )
            code = await proc.wait()
            finished = True
            return results[1], results[2], code
        finally:
            if not finished:
                self.groups.terminate_later(proc)
            else:
                self.groups.live.discard(proc.pid)

    async def _run_pidfd(self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str) -> tuple[bytes, bytes, int]:
        # Same contract as the asyncio path below it, at the cost of a plain spawn (bench row 4).
        try:
            child, *fds = spawn.start(argv, env, cwd)
        except OSError as exc:
            raise start_failure(exc, argv, cwd) from None
        self.spawned += 1
        self.groups.live.add(child.pid)
        finished = False
        try:
            result = await spawn.collect(child, (fds[0], fds[1], fds[2]), stdin, (self.limits.stdout_cap, self.limits.stderr_cap))
            finished = True
            return result
        except spawn.OverCap as exc:
            raise HookFailure("error", str(exc)) from None
        finally:
            if not finished:
                self.groups.terminate_later(child)  # type: ignore[arg-type]
            else:
                self.groups.live.discard(child.pid)

    @staticmethod
    async def _feed(proc: asyncio.subprocess.Process, data: bytes) -> None:
        stdin = proc.stdin
        assert stdin is not None
        # A hook may exit without reading its input; that is its business (uvloop then
        # raises RuntimeError: the pipe transport was already closed).
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
            stdin.write(data)
            await stdin.drain()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
            stdin.close()

    @staticmethod
    async def _read(stream: asyncio.StreamReader | None, cap: int, name: str | None) -> bytes:
        """Read to EOF keeping at most ``cap`` bytes; over the cap on stdout is an error."""
        assert stream is not None
        kept = bytearray()
        while True:
            chunk = await stream.read(_CHUNK)
            if not chunk:
                return bytes(kept)
            room = cap - len(kept)
            if len(chunk) > room:
                if name is not None:
                    raise HookFailure("error", f"{name} exceeded the cap of {cap} bytes")
                kept += chunk[:room]  # stderr: keep the head, drain the rest
            else:
                kept += chunk
