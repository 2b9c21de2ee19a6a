"""The hook engine: runs a call's plan.

``decide`` walks the decision hooks one after another and folds each answer
into a :class:`ChainState`; the members of a ``strictest`` group are one step,
run at once on the same payload and folded together. Then the point's
observers see the event with the outcome attached. ``emit`` starts the observers concurrently and, unless asked
to wait, returns at once. A failing observer never reaches the emitter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from dataclasses import dataclass
from functools import partial
from time import monotonic
from time import perf_counter as _clock
from typing import TYPE_CHECKING, Any

import structlog
from hookd_client.messages import Decision, HookError, HookRun, NotRun, TraceEntry

from hookd.core.chain import Answer, ChainState, Failed, HookNotRun, Skipped
from hookd.core.hooks import HookFailure, OutOfTime, Report, hook_timeout
from hookd.core.registry import CallContext, Hook, Plan
from hookd.core.trace import CAPTURE, Capture, Tracer, entry_of, unmatched
from hookd.runners.persistent import PersistentRunner

if TYPE_CHECKING:
    from hookd.events.stats import Stats

log = structlog.get_logger("hookd.engine")


@dataclass(slots=True)
class Counters:
    emits: int = 0
    decides: int = 0
    hook_runs: int = 0
    hook_errors: int = 0
    hook_timeouts: int = 0
    match_skips: int = 0  # hooks not started because their `match` filter failed


# One hook's run: its answer, its result (on the event and in stats), its trace entry when traced.
Ran = tuple[Answer, HookRun, TraceEntry | None]
# One step of the chain's walk: a hook, or a parallel group's members, and whether it is a group.
_Step = tuple[tuple[Hook, ...], bool]
Release = Callable[[], None]
Leases = dict[Hook, Release]


def _take(hook: Hook) -> Release | None:
    """A hold on whatever process serves ``hook`` (a runner may offer ``lease``), or None."""
    take = getattr(hook.runner, "lease", None)
    return take(hook) if take is not None else None


def _send(walk: Generator[_Step, bool, None], final: bool) -> _Step | None:
    """The chain's next step, told whether the last one's answer was final; None: the walk is over."""
    try:
        return walk.send(final)
    except StopIteration:
        return None


def result_run(hook: Hook, result: Decision | None, ms: float) -> HookRun:
    """A decision hook's result for the call's event and stats, from its answer."""
    if result is None:
        return HookRun(hook.ref, ms=ms)
    return HookRun(hook.ref, decision=result.decision, reason=result.reason, ms=ms, rule=result.rule)


def _release_when_done(release: Release, hook: Hook, _task: asyncio.Future[Any]) -> None:
    _release(release, hook)


def _release(release: Release, hook: Hook) -> None:
    try:
        release()
    except Exception:  # a runner's bug must not cost the call its answer
        log.exception("releasing a lease failed", hook=hook.name, source=hook.source)


def _skip_entry(hook: Hook, reason: str, why: str, traced: bool, payload: dict[str, Any] | None = None) -> TraceEntry | None:
    if not traced:
        return None
    return TraceEntry(hook.ref, hook.type, payload, skipped=reason, why=why)  # type: ignore[arg-type]


class Engine:
    def __init__(self, report: Report | None = None) -> None:
        self.counters = Counters()
        self._observers: set[asyncio.Task[Any]] = set()
        self.report = report  # where a hook's failure is told (hookd.hook.error, hookd.hook.timeout)
        # Counts observers' runs (a decide's own hooks are counted by the call, with its event).
        self.stats: Stats | None = None

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
        try:
            timeout, cut = hook_timeout(hook.timeout, ctx)
        except OutOfTime:
            raise HookNotRun("deadline", "the agent stops waiting for this call before the hook could run") from None
        self.counters.hook_runs += 1
        runner = hook.runner
        if type(runner) is PersistentRunner:
            try:
                # A warm worker with a free slot takes the request at once and watches the
                # timeout itself (one timer per worker, not one per call). None: it cannot.
                answer = runner.send(hook, payload, ctx, timeout)
                if answer is not None:
                    return await answer
            except (HookFailure, HookNotRun, asyncio.CancelledError):
                raise
            except Exception as exc:
                raise HookFailure("error", f"{type(exc).__name__}: {exc}") from exc
        try:
            async with asyncio.timeout(timeout):
                result = await hook.runner(hook, payload, ctx)
        except TimeoutError:
            why = f" (its timeout is {hook.timeout:g} s; the agent stops waiting for the call sooner)" if cut else ""
            raise HookFailure("timeout", f"no answer within {timeout:.3g} s{why}") from None
        except (HookFailure, HookNotRun):
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a runner bug or a handler's exception: report, never crash
            raise HookFailure("error", f"{type(exc).__name__}: {exc}") from exc
        if result is not None and not isinstance(result, Decision):
            raise HookFailure("error", f"answered {type(result).__name__}, not a HookDecision or null")
        return result

    def failed(self, hook: Hook, ctx: CallContext, failure: HookFailure, ms: float) -> tuple[Failed, HookRun]:
        """A decision hook that failed, as the chain takes it and as its result records it; counted and logged."""
        self._failed(hook, ctx, failure)
        return Failed(failure.code, failure.message), HookRun(hook.ref, ms=ms, error=failure.code, message=failure.message)

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
        if self.report is not None:
            point = "hookd.hook.timeout" if failure.code == "timeout" else "hookd.hook.error"
            payload = {"hook": hook.name, "scope": hook.scope, "source": hook.source, "type": hook.type, "point": ctx.point}
            self.report(point, {**payload, "message": failure.message}, ctx.session, ctx.project)

    @staticmethod
    def _not_run(state: ChainState, plan: Plan, tracer: Tracer | None = None) -> bool:
        """Name the plan's hooks that will not run; True when one's on_error policy decides the call."""
        for hook, reason, message in plan.not_run:
            ref = hook.ref if isinstance(hook, Hook) else hook
            state.runs.append(HookRun(ref, skipped=reason, message=message))
            if tracer is not None:
                tracer.skipped(hook, reason, message)
            if isinstance(hook, Hook):
                if state.skip(hook, reason, message):
                    return True
            else:
                state.not_run.append(NotRun(hook, reason, message))
        return False

    async def decide(
        self, plan: Plan, payload: dict[str, Any], ctx: CallContext, leases: Leases | None = None, tracer: Tracer | None = None
    ) -> ChainState:
        """Run the chain. ``leases`` (from :meth:`lease`) are released when the call ends, however it ends.
        Each hook's result goes to ``state.runs`` (and, with a ``tracer``, its trace entry to the tracer)."""
        self.counters.decides += 1
        state = ChainState(payload)
        runs = state.runs
        try:
            walk = self._walk(state, plan, tracer)
            step = next(walk, None)
            while step is not None:
                hooks, grouped = step
                if grouped:
                    final = await self._group(state, list(hooks), ctx, tracer)
                else:
                    hook = hooks[0]
                    answer, run, entry = await self._member(hook, state.payload, ctx, tracer is not None)
                    runs.append(run)
                    if tracer is not None:
                        tracer.add(entry)
                    final = state.take(hook, answer)
                step = _send(walk, final)
            if plan.observers:
                self.observe(plan.observers, {**state.payload, "outcome": state.summary()}, ctx, leases)
        finally:
            self.release(leases)
        return state

    def _walk(self, state: ChainState, plan: Plan, tracer: Tracer | None) -> Generator[_Step, bool, None]:
        """The chain's one walk, whichever way its hooks are run (awaited by :meth:`decide`, at once by
        :meth:`decide_now`): the hooks that will not run are named first (one's on_error may decide the
        call), then each decision hook in order is yielded to be run, a parallel group's members
        together (``grouped``), a hook whose matcher does not match named as skipped; the driver sends
        back whether the step's answer was final. The hooks after a final answer are named as not run."""
        steps = plan.decisions
        index = len(steps) if plan.not_run and self._not_run(state, plan, tracer) else 0
        while index < len(steps):
            hook = steps[index]
            index += 1
            group = hook.group
            if group is not None and group.parallel:
                members = [hook]
                while index < len(steps) and steps[index].group == group:
                    members.append(steps[index])
                    index += 1
                if (yield tuple(members), True):
                    break
                continue
            if hook.matcher is not None and not hook.matcher(state.payload):
                self._unmatched(hook, state.payload, state.runs, tracer)
                continue
            if (yield (hook,), False):
                break
        if index < len(steps):
            self._after_final(state, steps[index:], tracer)
        if tracer is not None and plan.skipped:
            self._disabled(plan, tracer)

    @staticmethod
    def _disabled(plan: Plan, tracer: Tracer) -> None:
        """The decision hooks of the plan that are turned off (the untrusted ones are named as not run)."""
        off = {id(h) for h, _, _ in plan.not_run} | {id(h) for h, _, _ in plan.shadow_skips}
        for hook in plan.skipped:
            if hook.type == "decision" and id(hook) not in off:
                tracer.skipped(hook, "disabled", "the hook is disabled (`hookd enable` turns it back on)")

    def _unmatched(self, hook: Hook, payload: dict[str, Any], runs: list[HookRun], tracer: Tracer | None) -> None:
        self.counters.match_skips += 1
        runs.append(HookRun(hook.ref, skipped="match"))
        if tracer is not None:
            tracer.skipped(hook, "match", unmatched(hook, payload), payload)

    @staticmethod
    def _after_final(state: ChainState, rest: tuple[Hook, ...], tracer: Tracer | None) -> None:
        """The hooks after the one whose final answer ended the chain: named, as not run."""
        by = state.decided_by.name if state.decided_by is not None else "?"
        for hook in rest:
            state.runs.append(HookRun(hook.ref, skipped="decided"))
            if tracer is not None:
                tracer.skipped(hook, "decided", f"the chain was already decided ({state.decision}) by {by!r}")

    async def _group(self, state: ChainState, members: list[Hook], ctx: CallContext, tracer: Tracer | None = None) -> bool:
        """Run a strictest group's matching members at once on one payload; fold them as one step."""
        payload = state.payload
        running = []
        for hook in members:
            if hook.matcher is not None and not hook.matcher(payload):
                self._unmatched(hook, payload, state.runs, tracer)
            else:
                running.append(hook)
        if not running:
            return False
        results = await asyncio.gather(*(self._member(hook, payload, ctx, tracer is not None) for hook in running))
        answers: list[Answer] = []
        for answer, run, entry in results:
            state.runs.append(run)
            if tracer is not None:
                tracer.add(entry)
            if answer is not None and type(answer) not in (Decision, Failed, Skipped):
                state.errors.extend(getattr(answer, "handler_errors", ()))
            answers.append(answer)
        return state.fold_group(list(zip(running, answers, strict=True)))

    async def _member(self, hook: Hook, payload: dict[str, Any], ctx: CallContext, traced: bool = False) -> Ran:
        """Run one decision hook: its answer (or how it failed or why it did not run), its result
        for the call's event and stats, and (when ``traced``) its trace entry."""
        capture = token = None
        if traced:
            capture = Capture()
            token = CAPTURE.set(capture)
        started = _clock()
        try:
            result = await self.invoke(hook, payload, ctx)
        except HookNotRun as skipped:
            log.warning("hook did not run", hook=hook.name, source=hook.source, reason=skipped.reason, error=skipped.message)
            run = HookRun(hook.ref, skipped=skipped.reason, message=skipped.message)
            answer: Answer = Skipped(skipped.reason, skipped.message)
        except HookFailure as failure:
            answer, run = self.failed(hook, ctx, failure, round((_clock() - started) * 1000, 3))
        else:
            answer, run = result, result_run(hook, result, round((_clock() - started) * 1000, 3))
        finally:
            if token is not None:
                CAPTURE.reset(token)
        if capture is None:
            return answer, run, None
        return answer, run, entry_of(hook, payload, answer, run, capture)

    # ----------------------------------------------------------------- shadows

    def shadows(self, plan: Plan, payload: dict[str, Any], ctx: CallContext, traced: bool) -> asyncio.Task[list[Ran]]:
        """Start the plan's shadow hooks on the call's payload, beside the chain: their answers are
        recorded, never applied. Each holds a lease on its process until it ends."""
        leases = {hook: _take(hook) for hook in plan.shadows}  # taken now, with the plan, as the chain's are
        return asyncio.ensure_future(self._shadows(plan, payload, ctx, traced, leases))

    async def _shadows(
        self, plan: Plan, payload: dict[str, Any], ctx: CallContext, traced: bool, leases: dict[Hook, Release | None]
    ) -> list[Ran]:
        out: list[Ran] = [
            (None, HookRun(hook.ref, skipped=reason, message=message), _skip_entry(hook, reason, message, traced))
            for hook, reason, message in plan.shadow_skips
        ]
        out.extend(await asyncio.gather(*(self._shadow(hook, payload, ctx, traced, leases.get(hook)) for hook in plan.shadows)))
        for _, run, entry in out:
            run.shadow = True
            if entry is not None:
                entry.shadow = True
        return out

    async def _shadow(self, hook: Hook, payload: dict[str, Any], ctx: CallContext, traced: bool, release: Release | None) -> Ran:
        try:
            if hook.matcher is not None and not hook.matcher(payload):
                self.counters.match_skips += 1
                why = unmatched(hook, payload) if traced else ""
                return None, HookRun(hook.ref, skipped="match"), _skip_entry(hook, "match", why, traced, payload)
            return await self._member(hook, payload, ctx, traced)
        finally:
            if release is not None:
                _release(release, hook)

    # ------------------------------------------------------------------ inline

    def decide_now(self, plan: Plan, payload: dict[str, Any], ctx: CallContext) -> ChainState | None:
        """``decide`` for a plan whose decision hooks all answer at once (``plan.inline``: the
        built-in guards), without an await and without a task: the chain's one walk (:meth:`_walk`),
        driven with each hook run at once instead of awaited, and each answer folded by the chain's one
        step (``ChainState.take``). None: the caller's deadline has passed, so
        the general path names the hooks as not run."""
        if ctx.deadline is not None and ctx.deadline <= monotonic():
            return None
        self.counters.decides += 1
        state = ChainState(payload)
        walk = self._walk(state, plan, None)
        step = next(walk, None)
        while step is not None:  # an inline plan has no parallel group: every step is one hook
            hook = step[0][0]
            answer, run = self._member_now(hook, state.payload, ctx)
            state.runs.append(run)
            step = _send(walk, state.take(hook, answer))
        if plan.observers:
            self.observe(plan.observers, {**state.payload, "outcome": state.summary()}, ctx)
        return state

    def _member_now(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> tuple[Answer, HookRun]:
        """One hook that answers at once: its answer (a failure as :meth:`invoke` makes one) and its result."""
        self.counters.hook_runs += 1
        started = _clock()
        try:
            result = hook.runner.answer_now(hook, payload, ctx)  # type: ignore[attr-defined]
            if result is not None and not isinstance(result, Decision):
                raise HookFailure("error", f"answered {type(result).__name__}, not a HookDecision or null")
        except HookFailure as failure:
            return self.failed(hook, ctx, failure, round((_clock() - started) * 1000, 3))
        except Exception as exc:  # a pack's bug: a failed hook under its on_error, as invoke makes it; never a crash
            raised = HookFailure("error", f"{type(exc).__name__}: {exc}")
            return self.failed(hook, ctx, raised, round((_clock() - started) * 1000, 3))
        # Milliseconds to the µs, without round()'s trip through a decimal string (the warm path's way).
        return result, result_run(hook, result, int((_clock() - started) * 1e6 + 0.5) / 1e3)

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
                if self.stats is not None:
                    self.stats.run(HookRun(hook.ref, "observer", skipped="match"), ctx.point)
                if release is not None:
                    _release(release, hook)
                continue
            if release is None:
                release = _take(hook)
            task = asyncio.ensure_future(self._observe_one(hook, payload, ctx))
            self._observers.add(task)
            task.add_done_callback(self._observers.discard)
            if release is not None:  # a callback, so a task cancelled before it started lets go too
                task.add_done_callback(partial(_release_when_done, release, hook))
            tasks.append(task)
        return tasks

    async def _observe_one(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> HookError | None:
        started = _clock()
        error: HookError | None = None
        try:
            await self.invoke(hook, payload, ctx)
        except HookNotRun as skipped:
            if self.stats is not None:
                self.stats.run(HookRun(hook.ref, "observer", skipped=skipped.reason, message=skipped.message), ctx.point)
            failure = HookFailure("error", f"did not run ({skipped.reason}): {skipped.message}")
            self._failed(hook, ctx, failure)
            return HookError(hook.ref, failure.code, failure.message)
        except HookFailure as failure:
            self._failed(hook, ctx, failure)
            error = HookError(hook.ref, failure.code, failure.message)
        if self.stats is not None:
            ms = round((_clock() - started) * 1000, 3)
            code, message = (error.code, error.message) if error is not None else (None, None)
            self.stats.run(HookRun(hook.ref, "observer", ms=ms, error=code, message=message), ctx.point)
        return error

    @property
    def observers_running(self) -> int:
        return len(self._observers)

    async def drain_observers(self, timeout: float) -> None:
        if self._observers:
            await asyncio.wait(set(self._observers), timeout=timeout)
