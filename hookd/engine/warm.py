"""A decide whose only hook is a warm one, run without a task: the engine's fast path for it.

A decide through one warm (``mode: persistent``) hook is a request line to a running worker and
an answer line back. Run as a coroutine, the call costs a task, a future, a timeout timer and a
pass of the event loop for each of them, several times the pipe round trip itself. Here the
request is written when the call is dispatched, the worker's read of the answer folds it into
the chain at once (:meth:`hookd.runners.workers.Worker.call`), and the call's reply future is resolved
then: no task, no timer of its own (the worker's one deadline timer watches the hook's timeout).

Only the plain case takes this path; anything else goes the general way (the engine's
``decide``), which gives the same outcome: a plan with more than that one decision hook,
hooks named as not run, a match filter that does not match, a worker not started yet, busy,
failed or retired, a replay. The guarantees are the general path's: a hook that times out,
dies or answers garbage is an error under its ``on_error`` policy, never an allow; the plan's
leases are held until the chain has ended; the call's reply future is resolved exactly once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Hashable
from time import perf_counter as _clock
from typing import TYPE_CHECKING, Any

import structlog
from hookd_client.messages import Reply

from hookd.core.chain import Answer, ChainState
from hookd.core.hooks import HookFailure, OutOfTime, hook_timeout
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import result_run
from hookd.runners.persistent import PersistentRunner, decision_of
from hookd.runners.workers import WorkerFailure

if TYPE_CHECKING:
    from hookd.engine.engine import Engine, Leases

log = structlog.get_logger("hookd.engine")

# What the call makes of its ended chain (and how long it took, ms): its reply, or a coroutine
# giving it (when the reply must wait, for an approval).
Then = Callable[[ChainState, float], "Reply | Coroutine[Any, Any, Reply]"]


def decide_warm(engine: Engine, plan: Plan, payload: dict[str, Any], ctx: CallContext, then: Then) -> asyncio.Future[Reply] | None:
    """Start the chain of ``plan`` when it is one warm hook whose worker takes the request now:
    the future of the call's reply (``then`` of the ended chain). The plan's leases are taken
    here, as it is snapshotted, and let go once its chain has ended. None: nothing was started
    and nothing is held, use the engine's ``decide``."""
    if len(plan.decisions) != 1 or plan.not_run:
        return None
    hook = plan.decisions[0]
    runner = hook.runner
    if type(runner) is not PersistentRunner or ctx.replay or (hook.group is not None and hook.group.parallel):
        return None
    if hook.matcher is not None and not hook.matcher(payload):
        return None
    worker = runner.warm(hook)
    if worker is None or (loop := worker.loop) is None:
        return None
    try:
        timeout, _ = hook_timeout(hook.timeout, ctx)
    except OutOfTime:
        return None  # the engine names the hook as not run
    # The one decision hook is held by its key (no release function to make and call); a plan
    # with observers takes the engine's leases, which its observers carry to their own ends.
    if plan.observers:
        key, leases = None, engine.lease(plan)
    else:
        key, leases = runner.hold(hook), None
    reply = _Reply(loop)
    started = _clock()

    def answered(answer: dict[str, Any] | None, failure: WorkerFailure | None) -> None:
        try:
            state = ChainState(payload)
            ms = _ms(started)
            taken: Answer
            try:
                if failure is not None:
                    raise failure
                result = decision_of(answer, hook.type == "decision")  # type: ignore[arg-type]
            except HookFailure as failed:
                taken, run = engine.failed(hook, ctx, failed, ms)
            else:
                taken, run = result, result_run(hook, result, ms)
            state.runs.append(run)
            state.take(hook, taken)
            if plan.observers:
                engine.observe(plan.observers, {**state.payload, "outcome": state.summary()}, ctx, leases)
        except Exception as exc:  # a bug here must still answer the call, and never as an allow
            log.exception("a warm hook's answer could not be folded", hook=hook.name)
            _let_go(runner, key, engine, leases, hook)
            reply.set_exception(exc)
            return
        _let_go(runner, key, engine, leases, hook)
        _settle(reply, then, state, _ms(started))

    request = {"id": 0, "point": ctx.point, "session": ctx.session, "project": ctx.project, "hook": hook.name, "payload": payload}
    if not worker.call(request, timeout, answered):
        _let_go(runner, key, engine, leases, hook)
        return None
    engine.counters.decides += 1
    engine.counters.hook_runs += 1
    return reply


def _ms(started: float) -> float:
    """Milliseconds since ``started``, to the µs: ``round(x, 3)`` goes through a decimal string."""
    return round((_clock() - started) * 1e6) / 1e3


def _let_go(runner: PersistentRunner, key: Hashable | None, engine: Engine, leases: Leases | None, hook: Hook) -> None:
    """Let the plan's workers go: never raises, so that the call is answered whatever happens."""
    try:
        if key is not None:
            runner.let_go(key)
        else:
            engine.release(leases)
    except Exception:
        log.exception("letting a warm hook's worker go failed", hook=hook.name)


def _settle(reply: _Reply, then: Then, state: ChainState, took: float) -> None:
    try:
        made = then(state, took)
        # A reply now, or what waits for a person (an approval) to give it.
        later = None if isinstance(made, Reply) else asyncio.ensure_future(made)
    except Exception as exc:  # the call is answered with the error, never left without a reply
        reply.set_exception(exc)
        return
    if later is None:
        reply.set_result(made)
        return

    def copy(task: asyncio.Future[Reply]) -> None:
        if task.cancelled():
            reply.cancel()
        elif (exc := task.exception()) is not None:
            reply.set_exception(exc)
        else:
            reply.set_result(task.result())

    later.add_done_callback(copy)


class _Reply(asyncio.Future[Any]):
    """A call's reply future whose done callbacks run as it is resolved, not at the loop's next
    pass: the connection writes the reply in the same pass that read the worker's answer, and
    the loop polls once less per call. A callback added once it is done, or with a context (as
    a task awaiting the future adds its wake-up), is scheduled as usual: a task is never
    stepped from inside the worker's read."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._eager: list[Callable[[_Reply], object]] = []

    def add_done_callback(self, fn: Callable[[_Reply], object], *, context: Any = None) -> None:
        if self.done() or context is not None:
            super().add_done_callback(fn, context=context)
        else:
            self._eager.append(fn)

    def remove_done_callback(self, fn: Callable[[_Reply], object]) -> int:
        kept = [f for f in self._eager if f != fn]
        removed = len(self._eager) - len(kept)
        self._eager = kept
        return removed + super().remove_done_callback(fn)

    def set_result(self, result: Any) -> None:
        super().set_result(result)
        self._run()

    def set_exception(self, exception: type[BaseException] | BaseException) -> None:
        super().set_exception(exception)
        self._run()

    def cancel(self, msg: Any = None) -> bool:
        cancelled = super().cancel(msg)
        if cancelled:
            self._run()
        return cancelled

    def _run(self) -> None:
        eager, self._eager = self._eager, []
        for fn in eager:
            try:
                fn(self)
            except Exception as exc:  # as the loop treats a failing callback: reported, the others still run
                self.get_loop().call_exception_handler({"message": "a reply callback failed", "exception": exc, "future": self})
