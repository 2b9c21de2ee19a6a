"""Persistent command hooks (``mode: persistent``): one warm worker per hook.

The hook's command is started once, on first use, and serves every call of
that hook over the worker protocol (docs/protocol.md, "Worker protocol";
docs/warm-hooks.md). A worker is keyed by the hook's layer, source, name and
whole spec, so a reload that leaves a hook's spec unchanged keeps its worker
warm, and one that changes or removes it retires the old worker.

Leases: a call holds a lease on the worker of each hook it plans to run
(:meth:`PersistentRunner.lease`). A retired worker (its hook removed or
replaced) is stopped when its last lease is released, so a chain planned
before a reload runs to its end on the worker it planned with; a call that
reaches a retired hook without a lease is refused (``not_loaded``) rather
than starting a worker nobody would stop. A worker that gave up after
repeated crashes refuses calls with ``worker_failed`` and its last error.

A replay (hookd/daemon/replay.py) never uses the warm worker, whose environment was fixed when it
started: it gets a worker of its own for the hook, started with ``HOOKD_REPLAY=1`` in its
environment, and stopped when the replay ends (:meth:`PersistentRunner.end_replay`).

Every answer passes the intake check (hookd/core/intake.py): one the wire cannot
carry is a hook error naming what was wrong.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Coroutine, Hashable, Iterable
from functools import partial
from typing import Any

import msgspec
from hookd_client.messages import Decision
from hookd_client.messages.base import decision_from

from hookd.core import intake
from hookd.core.chain import HookNotRun, once
from hookd.core.hooks import HookFailure, Report
from hookd.core.registry import CallContext, Hook
from hookd.runners.command import CommandRunner
from hookd.runners.workers import Worker, WorkerFailed, WorkerLimits, WorkerPool

_spec_bytes = msgspec.json.Encoder().encode
_ANSWER_FIELDS = frozenset(("id", "decision", "error"))  # the worker protocol's answer object
GONE_REMEMBERED = 4096  # retired hooks whose late, unleased calls are refused (oldest forgotten first)


def decision_of(reply: dict[str, Any], wants_decision: bool = True) -> Decision | None:
    """A worker's answer object as a HookDecision (or None); an ``error`` answer raises HookFailure."""
    error = reply.get("error")
    if error is not None:
        text = error if isinstance(error, str) else repr(error)
        raise HookFailure("error", f"the worker reported an error: {intake.safe_text(text)[:2000]}")
    if not wants_decision:
        return None
    if not _ANSWER_FIELDS.issuperset(reply):
        # A misspelt "decision" would otherwise read as an abstention.
        unknown = [f"`{key}`" for key in reply if key not in _ANSWER_FIELDS]
        plural = "s" if len(unknown) > 1 else ""
        raise HookFailure(
            "error", f"the worker's answer has unknown field{plural} {', '.join(unknown)}; an answer holds only id, decision and error"
        )
    decision = reply.get("decision")
    if decision is None:
        return None
    # As command.py's answer_of checks a process's answer, written out here: this runs for every
    # warm decide, and a shared helper's call made it about 3% more work.
    try:
        intake.check(decision, "the worker's decision")
    except intake.Unfit as exc:
        raise HookFailure("error", f"the answer cannot be carried: {exc}") from None
    try:
        return decision_from(decision)
    except ValueError as exc:
        raise HookFailure("error", f"the worker's decision is not a HookDecision: {exc}") from None


_observed = partial(decision_of, wants_decision=False)  # an observer's answer: only an error counts


def worker_key(hook: Hook) -> Hashable:
    return (hook.scope, hook.owner, hook.source, hook.name, _spec_bytes(hook.spec))


class PersistentRunner:
    """Runs persistent hooks; shares environment rules and process groups with the spawn runner."""

    def __init__(
        self, commands: CommandRunner, limits: WorkerLimits | None = None, pool: WorkerPool | None = None, report: Report | None = None
    ) -> None:
        self.commands = commands
        self.limits = limits or WorkerLimits(line_cap=commands.limits.stdout_cap, stderr_cap=commands.limits.stderr_cap)
        self.pool = pool or WorkerPool()
        self._by_hook: dict[Hook, Worker] = {}  # Hook hashes by identity: the per-call lookup is one dict hit
        self._leases: dict[Hashable, int] = {}  # worker key -> leases held
        self._keys: dict[Hook, Hashable] = {}  # worker keys of hooks in force, so a lease costs no encoding
        self._known: set[Hashable] = set()  # keys of hooks in force, as last told (prune, revive)
        self._gone: dict[Hashable, None] = {}  # keys retired: stopped once unleased, never started again
        self._replay: dict[Hashable, Worker] = {}  # replay workers (HOOKD_REPLAY=1), by worker key
        self.report = report  # where a worker marked failed is told (hookd.worker.failed; it is already logged)

    # ----------------------------------------------------------------- calls

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        worker = self._replay_worker(hook, ctx) if ctx.replay else self._by_hook.get(hook)
        if worker is None:
            worker = self._worker_for(hook, ctx)
        if worker.failed:
            raise HookNotRun("worker_failed", _failed_message(worker))
        # No timeout here: the engine's per-hook timeout cancels the request,
        # and a cancelled outstanding request kills the worker.
        try:
            reply = await worker.request(
                {"point": ctx.point, "session": ctx.session, "project": ctx.project, "hook": hook.name, "payload": payload}
            )
        except WorkerFailed:
            raise HookNotRun("worker_failed", _failed_message(worker)) from None
        return decision_of(reply, hook.type == "decision")

    def warm(self, hook: Hook) -> Worker | None:
        """The worker serving ``hook`` if it has one in force (started or not); None otherwise."""
        return self._by_hook.get(hook)

    def send(
        self, hook: Hook, payload: dict[str, Any], ctx: CallContext, timeout: float | None = None
    ) -> Coroutine[Any, Any, Decision | None] | None:
        """The engine's fast path for a call to a warm worker with a free slot: the request is
        written now, under ``timeout`` (the hook's, or less when the caller stops waiting sooner;
        the worker's deadline timer, not a timer per call;
        a request that misses it fails as a ``timeout`` and kills the worker), and the returned
        coroutine gives the answer as ``__call__`` would. None: nothing was sent, use ``__call__``
        (no worker yet, or it is starting, busy, failed or retired; a replay)."""
        if ctx.replay:
            return None
        worker = self._by_hook.get(hook)
        if worker is None:
            return None
        request = {"id": 0, "point": ctx.point, "session": ctx.session, "project": ctx.project, "hook": hook.name, "payload": payload}
        limit = hook.timeout if timeout is None else timeout
        return worker.send(request, limit, decision_of if hook.type == "decision" else _observed)

    def _worker_for(self, hook: Hook, ctx: CallContext) -> Worker:
        key = worker_key(hook)
        if key in self._gone and not self._leases.get(key):
            raise HookNotRun("not_loaded", f"hook {hook.name!r} was removed or replaced before this call reached it; its worker is retired")
        worker = self.pool.get(key, lambda: self._make(hook, ctx))
        if key not in self._gone:
            self._by_hook[hook] = worker
        return worker

    def _replay_worker(self, hook: Hook, ctx: CallContext) -> Worker:
        key = worker_key(hook)
        worker = self._replay.get(key)
        if worker is None:
            worker = self._replay[key] = self._make(hook, ctx)
            worker.name += " [replay]"
            worker.on_failed = None  # a replay publishes nothing but its summary
        return worker

    async def end_replay(self) -> None:
        """Stop the replay workers (a replay has ended and no other is running)."""
        workers, self._replay = list(self._replay.values()), {}
        for worker in workers:
            await worker.stop()

    # ---------------------------------------------------------------- leases

    def lease(self, hook: Hook) -> Callable[[], None] | None:
        """Hold whatever serves ``hook`` until the returned function is called (once; later calls
        do nothing). A retired worker is stopped only when its last lease is released."""
        if hook.runner is not self:
            return None
        return once(partial(self.let_go, self.hold(hook)))

    def hold(self, hook: Hook) -> Hashable:
        """:meth:`lease` at its barest, for a caller that lets go exactly once: a hold on the
        worker serving ``hook`` (one of this runner's) until :meth:`let_go` of what it returns."""
        key = self._keys.get(hook)
        if key is None:
            key = self._keys[hook] = worker_key(hook)
        self._leases[key] = self._leases.get(key, 0) + 1
        return key

    def let_go(self, key: Hashable) -> None:
        left = self._leases[key] - 1
        if left:
            self._leases[key] = left
            return
        del self._leases[key]
        if key in self._gone:
            self.pool.discard(key)

    def leases(self) -> int:
        """Leases held now, over every worker (for status and tests)."""
        return sum(self._leases.values())

    def _make(self, hook: Hook, ctx: CallContext) -> Worker:
        spec = hook.spec
        assert spec is not None, "a persistent hook always has a spec"
        env = self.commands.environment(hook, ctx)
        # One process serves every call, so only what is fixed for the hook goes in its environment.
        env["HOOKD_POINT"] = hook.point
        env["HOOKD_MODE"] = "persistent"
        env["HOOKD_CONCURRENCY"] = str(spec.concurrency)
        env["HOOKD_SESSION_ID"] = hook.owner if hook.scope == "session" else ""
        if hook.scope == "project":
            env["HOOKD_PROJECT_DIR"] = hook.owner
        elif hook.scope == "global":
            # One worker serves every project: its environment names none, each request's
            # ``project`` names the call's. (A session's worker keeps its session's project.)
            env["HOOKD_PROJECT_DIR"] = ""
        cwd = self.commands.working_dir(hook, ctx)
        where = "" if hook.scope == "global" else f":{os.path.basename(hook.owner) if hook.scope == 'project' else hook.owner}"
        return Worker(
            f"{hook.name} ({hook.scope}{where})",
            [spec.command, *spec.args],
            env=env,
            cwd=cwd,
            concurrency=spec.concurrency,
            limits=self.limits,
            groups=self.commands.groups,
            on_failed=self._failed,
        )

    def _failed(self, worker: Worker) -> None:
        if self.report is not None:
            self.report("hookd.worker.failed", {"worker": worker.name, "failures": worker.failures, "error": worker.error}, None, None)

    def prune(self, live: Iterable[Hook], reset: Iterable[Hook] = ()) -> None:
        """Retire the workers of hooks that are gone (each stops once no call holds a lease on it);
        ``reset`` hooks get a fresh worker if theirs failed."""
        mine = [h for h in live if h.runner is self]
        alive = set(mine)
        wanted = {worker_key(h) for h in mine}
        for key in (self._known | set(self.pool.workers)) - wanted:
            self._retire(key)
        for key in wanted:
            self._gone.pop(key, None)
        self._known = wanted
        self._by_hook = {h: w for h, w in self._by_hook.items() if h in alive}
        self._keys = {h: k for h, k in self._keys.items() if h in alive}
        self.pool.keep_only(wanted | set(self._leases))
        self.revive(reset)

    def _retire(self, key: Hashable) -> None:
        self._gone.pop(key, None)
        self._gone[key] = None
        while len(self._gone) > GONE_REMEMBERED:
            oldest = next(iter(self._gone))
            if self._leases.get(oldest):
                break  # never forget one still leased: its release stops the worker
            del self._gone[oldest]

    def revive(self, hooks: Iterable[Hook]) -> None:
        """Hooks (re)added: forget their failed workers, so the next call starts afresh."""
        for hook in hooks:
            if hook.runner is not self:
                continue
            key = worker_key(hook)
            self._known.add(key)
            self._gone.pop(key, None)
            worker = self.pool.workers.get(key)
            if worker is not None and worker.failed:
                self.pool.discard(key)
                self._by_hook = {h: w for h, w in self._by_hook.items() if w is not worker}

    def state_of(self, hook: Hook) -> str | None:
        """The worker state of a persistent hook, for listings: idle, running, backoff, failed (with why), stopped."""
        if hook.runner is not self:
            return None
        worker = self._by_hook.get(hook) or self.pool.workers.get(worker_key(hook))
        if worker is None:
            return "idle"
        info = worker.info()
        return f"{info.state}: {info.error}" if info.state == "failed" else info.state

    def owns_any(self, hooks: Iterable[Hook]) -> bool:
        return any(h.runner is self for h in hooks)

    async def stop_all(self) -> None:
        self._by_hook.clear()
        await self.end_replay()
        await self.pool.stop_all()


def _failed_message(worker: Worker) -> str:
    return f"worker {worker.name!r} gave up after {worker.failures} failures in a row; last error: {worker.error}"
