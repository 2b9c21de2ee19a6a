"""Command hooks (seed 000, 执行机制): one subprocess per call.

The payload goes in as JSON on stdin; a decision hook answers one JSON
HookDecision on stdout, or ``null`` (or nothing at all) to abstain. The answer
passes the intake check (hookd/core/intake.py): one the wire cannot carry is a hook
error naming what was wrong, so the hook's on_error applies. The process runs
in its own process group and carries a run mark (hookd/runners/contain.py), so
a timeout, or the daemon stopping, kills everything it started (TERM to the
group, then KILL to the whole tree after a grace period). Output is read with
caps, so a hook that floods stdout costs bounded memory and is reported, not
buffered. Process slots (hookd/runners/slots.py) keep a share for decision
hooks; observers past their share queue, and past the queue are shed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
from hookd_client.messages import Decision
from hookd_client.messages.base import decision_from

from hookd.config.hookhints import exit_status_hint
from hookd.core import intake, trace
from hookd.core.chain import HookNotRun
from hookd.core.hooks import HookFailure, Report
from hookd.core.registry import CallContext, Hook
from hookd.runners import claude, contain, procs, spawn
from hookd.runners.output import output_tail
from hookd.runners.slots import Shed, Slots

log = structlog.get_logger("hookd.hooks")

KILL_GRACE = 1.0
SHED_REPORT_INTERVAL = 1.0  # sheds of one hook within this many seconds are reported as one count
_CHUNK = 64 * 1024
_json = msgspec.json.Encoder()
_any = msgspec.json.Decoder()


@dataclass(frozen=True, slots=True)
class Limits:
    stdout_cap: int = 1 << 20
    stderr_cap: int = 64 * 1024
    # A burst of emits must not fork-bomb the machine: past this many live hook
    # processes, further spawns wait their turn.
    max_processes: int = 64
    # Of max_processes, this many only decision hooks may take: observers can never
    # make a guard wait. Decision hooks may also use any free slot of the rest.
    reserved_for_decisions: int = 16
    # Observers waiting for a slot, past which further observer calls are shed
    # (dropped, counted and reported); a decision hook is never shed.
    observer_queue: int = 256


def start_failure(exc: OSError, argv: list[str], cwd: str) -> HookFailure:
    """What to say when a hook's process cannot be started."""
    if isinstance(exc, FileNotFoundError):
        if not os.path.isdir(cwd):
            return HookFailure("error", f"working directory does not exist: {cwd} (the hook's cwd)")
        return HookFailure("error", f"command not found: {argv[0]!r} (cwd {cwd})")
    if isinstance(exc, PermissionError):
        return HookFailure("error", f"command not executable: {argv[0]!r} (cwd {cwd})")
    return HookFailure("error", f"could not start {argv[0]!r}: {exc}")


def answer_of(stdout: bytes, what: str = "stdout") -> Decision | None:
    """A decision hook's stdout as its answer: empty or ``null`` abstains; anything else must be
    a HookDecision the wire can carry, else HookFailure naming what was wrong."""
    if not stdout.strip():
        return None
    try:
        value = _any.decode(stdout)
    except msgspec.DecodeError as exc:
        raise HookFailure("error", f"{what} is not valid JSON ({exc}): {output_tail(stdout, 300)}") from None
    except RecursionError:
        raise HookFailure("error", f"{what}: nested deeper than {intake.MAX_DEPTH} levels") from None
    if value is None:
        return None
    try:
        intake.check(value, what)
    except intake.Unfit as exc:
        raise HookFailure("error", f"the answer cannot be carried: {exc}") from None
    try:
        return decision_from(value)
    except ValueError as exc:
        raise HookFailure("error", f"{what} is not a HookDecision: {exc}: {output_tail(stdout, 300)}") from None


class ProcessGroups:
    """Every live hook process (group leader), so a kill or shutdown reaches its whole tree."""

    def __init__(self, containment: contain.Containment | None = None) -> None:
        self.live: set[int] = set()
        self.tags: dict[int, str] = {}  # leader pid -> its run mark
        self.containment = containment or contain.default()
        self._reapers: set[asyncio.Task[None]] = set()

    def mark(self, env: dict[str, str] | None) -> tuple[dict[str, str], str]:
        """``env`` with a fresh run mark, for a process about to be started."""
        return self.containment.mark(env)

    def started(self, pid: int, tag: str | None) -> None:
        self.live.add(pid)
        if tag:
            self.tags[pid] = tag
        self.containment.adopt(pid, tag)

    def finished(self, pid: int) -> None:
        self.live.discard(pid)
        self.containment.release(self.tags.pop(pid, None))

    def kill(self, pgid: int, sig: int) -> None:
        procs.killpg(pgid, sig)

    def kill_tree(self, pid: int) -> None:
        """SIGKILL the group of ``pid`` and every process of its run, wherever it moved."""
        self.containment.kill(pid, self.tags.get(pid))

    def terminate_later(
        self, proc: asyncio.subprocess.Process | spawn.Child, grace: float = KILL_GRACE, on_gone: Callable[[], None] | None = None
    ) -> None:
        """TERM the group now and KILL the tree after ``grace`` unless it is gone, without blocking the caller."""
        self.kill(proc.pid, signal.SIGTERM)
        task = asyncio.get_running_loop().create_task(self._reap(proc, grace, on_gone))
        self._reapers.add(task)
        task.add_done_callback(self._reapers.discard)

    async def _reap(self, proc: asyncio.subprocess.Process | spawn.Child, grace: float, on_gone: Callable[[], None] | None) -> None:
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(grace):
                    await proc.wait()
            # The leader may be gone while descendants linger, in its group or not.
            self.kill_tree(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                await proc.wait()
            self.finished(proc.pid)
        finally:
            if on_gone is not None:
                on_gone()

    async def settle(self) -> None:
        """Wait until every TERM-then-KILL reaper has finished."""
        while self._reapers:
            await asyncio.gather(*self._reapers, return_exceptions=True)

    def kill_all(self) -> None:
        for pid in list(self.live):
            self.kill_tree(pid)
        self.live.clear()
        self.tags.clear()


class _Slot:
    """One taken process slot: released once, by the run or, after a kill, by the reaper."""

    __slots__ = ("decision", "handed", "released", "slots")

    def __init__(self, slots: Slots, decision: bool) -> None:
        self.slots = slots
        self.decision = decision
        self.handed = False  # the reaper releases it once the process is gone
        self.released = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.slots.release(self.decision)


class CommandRunner:
    """Runs a hook's command. One instance serves every command hook of the daemon."""

    def __init__(self, limits: Limits | None = None, groups: ProcessGroups | None = None, report: Report | None = None) -> None:
        self.limits = limits or Limits()
        self.groups = groups or ProcessGroups()
        self.base_env = dict(os.environ)
        self.spawned = 0
        lim = self.limits
        self.slots = Slots(lim.max_processes, lim.reserved_for_decisions, lim.observer_queue)
        # Where observer calls shed are told (``hookd.hook.shed``: the hook, the latest shed call's
        # context, how many were shed since the last report). Reports of one hook are at most one
        # per SHED_REPORT_INTERVAL, so a flood cannot turn into a flood of reports.
        self.report = report
        self._shed_pending: dict[Hook, list[Any]] = {}

    def environment(self, hook: Hook, ctx: CallContext, env: dict[str, str] | None = None) -> dict[str, str]:
        """A hook process's environment: ``env`` (a copy of the daemon's own unless given), with the
        hook's own variables and hookd's HOOKD_* ones over it."""
        if env is None:
            env = dict(self.base_env)
        if hook.spec is not None:
            env.update(hook.spec.env)
        env["HOOKD_POINT"] = ctx.point
        env["HOOKD_SESSION_ID"] = ctx.session or ""
        env["HOOKD_PROJECT_DIR"] = ctx.project or ""
        env["HOOKD_HOOK_NAME"] = hook.name
        if ctx.replay:
            env["HOOKD_REPLAY"] = "1"
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
        if spec.format == "claude-code":
            return await claude.call(self, hook, payload, ctx)
        decision = hook.type == "decision"
        try:
            stdout, stderr, code = await self.run(
                [spec.command, *spec.args],
                _json.encode(payload),
                self.environment(hook, ctx),
                self.working_dir(hook, ctx),
                decision=decision,
            )
        except Shed as exc:
            self.shed(hook, ctx)
            raise HookNotRun("shed", f"observer shed: {exc}") from None
        trace.output(stdout, stderr)
        if code != 0:
            detail = f"; stderr: {output_tail(stderr)}" if stderr.strip() else ""
            hint = exit_status_hint(spec.command, code, decision)
            if decision and stdout.strip():
                # Say so: a guard that printed a deny and then failed must not read as having denied.
                hint += f" (what it printed was not taken as its answer: {output_tail(stdout, 200)})"
            raise HookFailure("error", f"{spec.command} exited with status {code}{hint}{detail}")
        if stderr.strip():
            # A working hook's diagnostics belong in the daemon's log, not in the outcome.
            log.info("hook stderr", hook=hook.name, scope=hook.scope, source=hook.source, point=ctx.point, stderr=output_tail(stderr))
        if not decision:
            return None
        return answer_of(stdout)

    def shed(self, hook: Hook, ctx: CallContext) -> None:
        """Count an observer call shed for want of a process slot; reported once a second per hook."""
        pending = self._shed_pending.get(hook)
        if pending is not None:
            pending[0] += 1
            pending[1] = ctx
            return
        self._shed_pending[hook] = [0, ctx]
        self._report_shed(hook, ctx, 1)
        asyncio.get_running_loop().call_later(SHED_REPORT_INTERVAL, self._flush_shed, hook)

    def _flush_shed(self, hook: Hook) -> None:
        count, ctx = self._shed_pending.pop(hook, (0, None))
        if count and ctx is not None:
            self._report_shed(hook, ctx, count)
            self._shed_pending[hook] = [0, ctx]  # keep coalescing while the flood lasts
            asyncio.get_running_loop().call_later(SHED_REPORT_INTERVAL, self._flush_shed, hook)

    def _report_shed(self, hook: Hook, ctx: CallContext, count: int) -> None:
        log.warning(
            "observer calls shed", hook=hook.name, scope=hook.scope, source=hook.source, point=ctx.point, count=count, total=self.slots.shed
        )
        if self.report is not None:
            payload = {"hook": hook.name, "scope": hook.scope, "source": hook.source, "point": ctx.point, "shed": count}
            try:
                self.report("hookd.hook.shed", payload, ctx.session, ctx.project)
            except Exception:
                log.exception("reporting shed calls failed", hook=hook.name)

    async def run(self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str, *, decision: bool = True) -> tuple[bytes, bytes, int]:
        """Run argv to completion; returns (stdout, stderr, exit status).

        ``decision``: whether a decision hook asks (it may use the reserved share and is
        never shed) or an observer (raises Shed when its queue is full). Cancellation (the
        engine's timeout) kills the process tree; the slot is held until the process is gone.
        """
        await self.slots.acquire(decision)
        slot = _Slot(self.slots, decision)
        try:
            return await self._run(argv, stdin, env, cwd, slot)
        finally:
            if not slot.handed:
                slot.release()

    async def _run(self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str, slot: _Slot) -> tuple[bytes, bytes, int]:
        env, tag = self.groups.mark(env)
        if spawn.AVAILABLE:
            return await self._run_pidfd(argv, stdin, env, cwd, tag, slot)
        try:
            with self.groups.containment.entering(tag) as enter:
                proc = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    env=env,
                    cwd=cwd,
                    start_new_session=True,
                    preexec_fn=enter,
                )
        except OSError as exc:
            raise start_failure(exc, argv, cwd) from None
        with self._tracked(proc, tag, slot):
            results = await asyncio.gather(
                self._feed(proc, stdin),
                self._read(proc.stdout, self.limits.stdout_cap, "stdout"),
                self._read(proc.stderr, self.limits.stderr_cap, None),
            )
            return results[1], results[2], await proc.wait()

    async def _run_pidfd(
        self, argv: list[str], stdin: bytes, env: dict[str, str], cwd: str, tag: str, slot: _Slot
    ) -> tuple[bytes, bytes, int]:
        # Same contract as the asyncio path below it, at the cost of a plain spawn.
        try:
            with self.groups.containment.entering(tag) as enter:
                child, *fds = spawn.start(argv, env, cwd, enter)
        except OSError as exc:
            raise start_failure(exc, argv, cwd) from None
        with self._tracked(child, tag, slot):
            try:
                return await spawn.collect(child, (fds[0], fds[1], fds[2]), stdin, (self.limits.stdout_cap, self.limits.stderr_cap))
            except spawn.OverCap as exc:
                raise HookFailure("error", str(exc)) from None

    @contextlib.contextmanager
    def _tracked(self, proc: asyncio.subprocess.Process | spawn.Child, tag: str, slot: _Slot) -> Iterator[None]:
        """A started hook process, counted and in its group until it is done with; a run that ends
        before it is (cancelled by the engine's timeout, over a cap) hands the slot on to the
        process tree's termination, which releases it once the tree is gone."""
        self.spawned += 1
        self.groups.started(proc.pid, tag)
        try:
            yield
        except BaseException:
            slot.handed = True
            self.groups.terminate_later(proc, on_gone=slot.release)
            raise
        self.groups.finished(proc.pid)

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
