"""The hook engine: runs a call's plan.

``decide`` walks the decision hooks one after another and folds each answer
into a :class:`ChainState`; the members of a ``strictest`` group are one step,
run at once on the same payload and folded together. Then the point's
observers see the event with the outcome attached. ``emit`` starts the observers concurrently and, unless asked
to wait, returns at once. A failing observer never reaches the emitter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from hookd_client.messages import Decision, HookError, NotRun

from .chain import Answer, ChainState, Failed, HookNotRun, Skipped
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


Release = Callable[[], None]
Leases = dict[Hook, Release]


def _take(hook: Hook) -> Release | None:
    """A hold on whatever process serves ``hook`` (a runner may offer ``lease``), or None."""
    take = getattr(hook.runner, "lease", None)
    return take(hook) if take is not None else None


def _release(release: Release, hook: Hook) -> None:
    try:
        release()
    except Exception:  # a runner's bug must not cost the call its answer
        log.exception("releasing a lease failed", hook=hook.name, source=hook.source)


class Engine:
    def __init__(self) -> None:
        self.counters = Counters()
        self._observers: set[asyncio.Task[Any]] = set()
        self.on_hook_error: Callable[[Hook, CallContext, str, str], None] | None = None

    # ------------------------------------------------------------------ leases

    def lease(self, plan: Plan) -> Leases | None:
        """Leases on the processes serving every hook of ``plan``, taken now (when the plan is
        snapshotted): a reload retires those processes only once the call let them go."""
        leases: Leases | None = None
        for hook in (*plan.decisions, *plan.observers):
            release = _take(hook)
            if release is not None:
                if leases is None:
                    leases = {}
                leases[hook] = release
        return leases

    @staticmethod
    def release(leases: Leases | None) -> None:
        while leases:
            hook, release = leases.popitem()
            _release(release, hook)

    # ------------------------------------------------------------------- calls

    async def invoke(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        """Run one hook under its timeout; failures surface as HookFailure, a hook that could
        not be run at all as HookNotRun."""
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

    @staticmethod
    def _not_run(state: ChainState, plan: Plan) -> bool:
        """Name the plan's hooks that will not run; True when one's on_error policy decides the call."""
        for hook, reason, message in plan.not_run:
            if isinstance(hook, Hook):
                if state.skip(hook, reason, message):
                    return True
            else:
                state.not_run.append(NotRun(hook, reason, message))
        return False

    async def decide(self, plan: Plan, payload: dict[str, Any], ctx: CallContext, leases: Leases | None = None) -> ChainState:
        """Run the chain. ``leases`` (from :meth:`lease`) are released when the call ends, however it ends."""
        self.counters.decides += 1
        state = ChainState(payload)
        try:
            decided = bool(plan.not_run) and self._not_run(state, plan)
            steps = () if decided else plan.decisions
            index = 0
            while index < len(steps):
                hook = steps[index]
                index += 1
                group = hook.group
                if group is not None and group.parallel:
                    members = [hook]
                    while index < len(steps) and steps[index].group == group:
                        members.append(steps[index])
                        index += 1
                    if await self._group(state, members, ctx):
                        break
                    continue
                if hook.matcher is not None and not hook.matcher(state.payload):
                    self.counters.match_skips += 1
                    continue
                try:
                    result = await self.invoke(hook, state.payload, ctx)
                except HookNotRun as skipped:
                    log.warning("hook did not run", hook=hook.name, source=hook.source, reason=skipped.reason, error=skipped.message)
                    if state.skip(hook, skipped.reason, skipped.message):
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
            if plan.observers:
                self.observe(plan.observers, {**state.payload, "outcome": state.summary()}, ctx, leases)
        finally:
            self.release(leases)
        return state

    async def _group(self, state: ChainState, members: list[Hook], ctx: CallContext) -> bool:
        """Run a strictest group's matching members at once on one payload; fold them as one step."""
        payload = state.payload
        running = []
        for hook in members:
            if hook.matcher is not None and not hook.matcher(payload):
                self.counters.match_skips += 1
            else:
                running.append(hook)
        if not running:
            return False
        answers = await asyncio.gather(*(self._member(hook, payload, ctx) for hook in running))
        for answer in answers:
            if answer is not None and type(answer) not in (Decision, Failed, Skipped):
                state.errors.extend(getattr(answer, "handler_errors", ()))
        return state.fold_group(list(zip(running, answers, strict=True)))

    async def _member(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Answer:
        try:
            return await self.invoke(hook, payload, ctx)
        except HookNotRun as skipped:
            log.warning("hook did not run", hook=hook.name, source=hook.source, reason=skipped.reason, error=skipped.message)
            return Skipped(skipped.reason, skipped.message)
        except HookFailure as failure:
            self._failed(hook, ctx, failure)
            return Failed(failure.code, failure.message)

    def decided_without_hooks(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> ChainState:
        """``decide`` for a plan with no decision hooks, without an await (the hot path)."""
        self.counters.decides += 1
        state = ChainState(payload)
        if plan.not_run:
            self._not_run(state, plan)
        if plan.observers:
            self.observe(plan.observers, {**payload, "outcome": state.summary()}, ctx)
        return state

    def emit(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> list[asyncio.Task[HookError | None]]:
        self.counters.emits += 1
        return self.observe(plan.observers, payload, ctx)

    def observe(
        self, hooks: tuple[Hook, ...], payload: dict[str, Any], ctx: CallContext, leases: Leases | None = None
    ) -> list[asyncio.Task[HookError | None]]:
        """Start the observers; each holds a lease (taken now, unless ``leases`` has it) until it ends."""
        tasks = []
        for hook in hooks:
            release = leases.pop(hook, None) if leases else None
            if hook.matcher is not None and not hook.matcher(payload):
                self.counters.match_skips += 1
                if release is not None:
                    _release(release, hook)
                continue
            if release is None:
                release = _take(hook)
            task = asyncio.ensure_future(self._observe_one(hook, payload, ctx))
            self._observers.add(task)
            task.add_done_callback(self._observers.discard)
            if release is not None:  # a callback, so a task cancelled before it started lets go too
                task.add_done_callback(lambda _t, r=release, h=hook: _release(r, h))
            tasks.append(task)
        return tasks

    async def _observe_one(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> HookError | None:
        try:
            await self.invoke(hook, payload, ctx)
        except HookNotRun as skipped:
            failure = HookFailure("error", f"did not run ({skipped.reason}): {skipped.message}")
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
