"""The hook engine: runs a call's plan.

``decide`` walks the decision hooks one after another and folds each answer
into a :class:`ChainState`; then the point's observers see the event with the
outcome attached. ``emit`` starts the observers concurrently and, unless asked
to wait, returns at once. A failing observer never reaches the emitter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from hookd_client.messages import Decision, HookError

from .chain import ChainState, HookNotRun
from .registry import CallContext, Hook, Plan
from .runners.command import HookFailure

log = structlog.get_logger("hookd.engine")


@dataclass(slots=True)
class Counters:
    emits: int = 0
    decides: int = 0
    hook_runs: int = 0
    hook_errors: int = 0
    hook_timeouts: int = 0
    match_skips: int = 0  # hooks not started because their `match` filter failed


class Engine:
    def __init__(self) -> None:
        self.counters = Counters()
        self._observers: set[asyncio.Task[Any]] = set()
        self.on_hook_error: Callable[[Hook, CallContext, str, str], None] | None = None

    async def invoke(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        """Run one hook under its timeout; failures surface as HookFailure."""
        self.counters.hook_runs += 1
        try:
            async with asyncio.timeout(hook.timeout):
                result = await hook.runner(hook, payload, ctx)
        except TimeoutError:
            raise HookFailure("timeout", f"no answer within {hook.timeout:g} s") from None
        except (HookFailure, HookNotRun):
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a runner bug or a handler's exception: report, never crash
            raise HookFailure("error", f"{type(exc).__name__}: {exc}") from exc
        if result is not None and not isinstance(result, Decision):
            raise HookFailure("error", f"answered {type(result).__name__}, not a HookDecision or null")
        return result

    def _failed(self, hook: Hook, ctx: CallContext, failure: HookFailure) -> None:
        if failure.code == "timeout":
            self.counters.hook_timeouts += 1
        self.counters.hook_errors += 1
        log.warning(
            "hook failed",
            hook=hook.name,
            scope=hook.scope,
            source=hook.source,
            point=ctx.point,
            session=ctx.session,
            code=failure.code,
            error=failure.message,
        )
        if self.on_hook_error is not None:
            self.on_hook_error(hook, ctx, failure.code, failure.message)

    async def decide(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> ChainState:
        self.counters.decides += 1
        state = ChainState(payload)
        releases = _leases(plan.decisions)
        try:
            await self._chain(plan, state, ctx)
            if plan.observers:  # before the release: the observers' own leases keep a shared host
                self.observe(plan.observers, {**state.payload, "outcome": state.summary()}, ctx)
        finally:
            for release in releases:
                release()
        return state

    async def _chain(self, plan: Plan, state: ChainState, ctx: CallContext) -> None:
        for hook in plan.decisions:
            if hook.matcher is not None and not hook.matcher(state.payload):
                self.counters.match_skips += 1
                continue
            try:
                result = await self.invoke(hook, state.payload, ctx)
            except HookNotRun as not_run:
                if state.skip(hook, not_run.reason, not_run.message):
                    break
                continue
            except HookFailure as failure:
                self._failed(hook, ctx, failure)
                if state.fail(hook, failure.code, failure.message):
                    break
                continue
            if result is not None and type(result) is not Decision:
                # A runner that runs several handlers (plugins) reports the ones that failed without stopping it.
                state.errors.extend(getattr(result, "handler_errors", ()))
            if state.apply(hook, result):
                break

    def decided_without_hooks(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> ChainState:
        """``decide`` for a plan with no decision hooks, without an await (the hot path)."""
        self.counters.decides += 1
        state = ChainState(payload)
        if plan.observers:
            self.observe(plan.observers, {**payload, "outcome": state.summary()}, ctx)
        return state

    def emit(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> list[asyncio.Task[HookError | None]]:
        self.counters.emits += 1
        return self.observe(plan.observers, payload, ctx)

    def observe(self, hooks: tuple[Hook, ...], payload: dict[str, Any], ctx: CallContext) -> list[asyncio.Task[HookError | None]]:
        tasks = []
        for hook in hooks:
            if hook.matcher is not None and not hook.matcher(payload):
                self.counters.match_skips += 1
                continue
            releases = _leases((hook,))  # held from now until the observer is done
            task = asyncio.ensure_future(self._observe_one(hook, payload, ctx))
            self._observers.add(task)
            task.add_done_callback(self._observers.discard)
            if releases:
                task.add_done_callback(lambda _t, held=releases: _release(held))
            tasks.append(task)
        return tasks

    async def _observe_one(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> HookError | None:
        try:
            await self.invoke(hook, payload, ctx)
        except HookNotRun as not_run:
            failure = HookFailure("error", not_run.message)
            self._failed(hook, ctx, failure)
            return HookError(hook.ref, failure.code, failure.message)
        except HookFailure as failure:
            self._failed(hook, ctx, failure)
            return HookError(hook.ref, failure.code, failure.message)
        return None

    @property
    def observers_running(self) -> int:
        return len(self._observers)

    async def drain_observers(self, timeout: float) -> None:
        if self._observers:
            await asyncio.wait(set(self._observers), timeout=timeout)


def _leases(hooks: tuple[Hook, ...]) -> list[Callable[[], None]]:
    """Hold the processes that serve a plan's hooks for the whole call (runners with a ``lease``)."""
    releases = []
    for hook in hooks:
        lease = getattr(hook.runner, "lease", None)
        if lease is not None and (release := lease(hook)) is not None:
            releases.append(release)
    return releases


def _release(releases: list[Callable[[], None]]) -> None:
    for release in releases:
        release()
