"""Persistent command hooks (``mode: persistent``): one warm worker per hook.

The hook's command is started once, on first use, and serves every call of
that hook over the worker protocol (docs/protocol.md, "Worker protocol";
docs/warm-hooks.md). A worker is keyed by the hook's layer, source, name and
whole spec, so a reload that leaves a hook's spec unchanged keeps its worker
warm, and one that changes or removes it stops the old worker.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import msgspec
from hookd_client.messages import Decision

from ..registry import CallContext, Hook
from ..workers import Worker, WorkerLimits, WorkerPool
from .command import CommandRunner, HookFailure

_spec_bytes = msgspec.json.Encoder().encode


def decision_of(reply: dict[str, Any], wants_decision: bool = True) -> Decision | None:
    """A worker's answer object as a HookDecision (or None); an ``error`` answer raises HookFailure."""
    error = reply.get("error")
    if error is not None:
        raise HookFailure("error", f"the worker reported an error: {error}")
    decision = reply.get("decision")
    if not wants_decision or decision is None:
        return None
    try:
        return msgspec.convert(decision, Decision)
    except msgspec.ValidationError as exc:
        raise HookFailure("error", f"the worker's decision is not a HookDecision: {exc}") from None


def worker_key(hook: Hook) -> Hashable:
    return (hook.scope, hook.owner, hook.source, hook.name, _spec_bytes(hook.spec))


class PersistentRunner:
    """Runs persistent hooks; shares environment rules and process groups with the spawn runner."""

    def __init__(self, commands: CommandRunner, limits: WorkerLimits | None = None, pool: WorkerPool | None = None) -> None:
        self.commands = commands
        self.limits = limits or WorkerLimits(line_cap=commands.limits.stdout_cap, stderr_cap=commands.limits.stderr_cap)
        self.pool = pool or WorkerPool()
        self._by_hook: dict[Hook, Worker] = {}  # Hook hashes by identity: the per-call lookup is one dict hit
        # Called when a worker is marked failed (it is already logged); the place to publish an event.
        self.on_worker_failed: Callable[[Worker], None] | None = None

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        worker = self._by_hook.get(hook)
        if worker is None:
            worker = self._by_hook[hook] = self.pool.get(worker_key(hook), lambda: self._make(hook, ctx))
        # No timeout here: the engine's per-hook timeout cancels the request,
        # and a cancelled outstanding request kills the worker.
        reply = await worker.request(
            {"point": ctx.point, "session": ctx.session, "project": ctx.project, "hook": hook.name, "payload": payload}
        )
        return decision_of(reply, hook.type == "decision")

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
        if self.on_worker_failed is not None:
            self.on_worker_failed(worker)

    def prune(self, live: Iterable[Hook], reset: Iterable[Hook] = ()) -> None:
        """Stop the workers of hooks that are gone; ``reset`` hooks get a fresh worker if theirs failed."""
        mine = [h for h in live if h.runner is self]
        alive = set(mine)
        self._by_hook = {h: w for h, w in self._by_hook.items() if h in alive}
        self.pool.keep_only(worker_key(h) for h in mine)
        self.revive(reset)

    def revive(self, hooks: Iterable[Hook]) -> None:
        """Forget the failed workers of ``hooks`` (reloaded or attached again), so the next call starts afresh."""
        for hook in hooks:
            if hook.runner is not self:
                continue
            key = worker_key(hook)
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
        await self.pool.stop_all()
