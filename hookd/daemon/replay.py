"""Replay: journaled decide calls run again against the hooks in force now.

A call is read back from the journal (its payload, point, session, project and what was
decided then) and run through today's plan for it, with three differences from a real call:

- observer hooks do not run (the plan is stripped of them);
- the call context says ``replay``, which the runners hand to each decision hook
  (``HOOKD_REPLAY=1`` in a command hook's environment, a replay worker of its own for a
  warm hook, ``replay`` in what a plugin handler or a client's callback receives);
- nothing is published or counted as a call: the chain runs on an engine of its own (its
  counters, no hook-error callback), and the handler publishes one summary event.

What the journal does not keep cannot be compared: the agent's environment (``agentEnv``
is never journaled), modified input and injections. The decision, its reason and the hook
that decided are.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from collections.abc import Iterable, Iterator
from typing import Any

from hookd_client import messages as m

from hookd.core.chain import ChainState, HookNotRun
from hookd.core.hooks import HookFailure
from hookd.core.registry import CallContext, Hook, Plan
from hookd.engine.engine import Engine
from hookd.events import eventcodec


class Recorder(Engine):
    """An engine for one replayed call: runs the chain as a decide does and notes every decision
    hook's answer. Its counters are its own and it reports hook failures to nobody, so a replay
    never shows up in the daemon's numbers or on the bus as a hook error of a real call."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[m.HookAnswer] = []

    async def invoke(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> m.Decision | None:
        try:
            result = await super().invoke(hook, payload, ctx)
        except HookNotRun as exc:
            self.answers.append(m.HookAnswer(hook.ref, "not_run", f"{exc.reason}: {exc.message}"))
            raise
        except HookFailure as exc:
            self.answers.append(m.HookAnswer(hook.ref, exc.code, exc.message))
            raise
        if result is None or result.decision is None:
            self.answers.append(m.HookAnswer(hook.ref, "abstain", None if result is None else result.reason))
        else:
            self.answers.append(m.HookAnswer(hook.ref, result.decision, result.reason))
        return result


def without_observers(plan: Plan) -> Plan:
    return dataclasses.replace(plan, observers=())


@dataclasses.dataclass(slots=True)
class Selection:
    """Which journaled calls a replay takes."""

    first: int | None = None
    last: int | None = None
    since: float | None = None
    points: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()

    @classmethod
    def of(cls, req: m.Replay) -> Selection:
        return cls(req.first, req.last, req.since, tuple(req.points), tuple(req.sessions))

    def wants(self, ev: m.Event, point: str) -> bool:
        if self.first is not None and ev.seq < self.first:
            return False
        if self.points and not any(fnmatch.fnmatchcase(point, p) for p in self.points):
            return False
        return not self.sessions or ev.session in self.sessions


def decides(events: Iterable[m.Event], sel: Selection) -> Iterator[m.Event]:
    """The journaled decide calls ``sel`` takes, oldest first. A decide whose payload could not be
    kept whole is there as an ``unencodable`` marker: yielded too, for the caller to count."""
    for ev in events:
        if sel.last is not None and ev.seq > sel.last:
            return
        if ev.kind == "decide" or (ev.point == eventcodec.UNENCODABLE and ev.payload.get("kind") == "decide"):
            point = ev.point if ev.kind == "decide" else str(ev.payload.get("point", ""))
            if sel.wants(ev, point):
                yield ev


def then_of(ev: m.Event) -> m.Verdict:
    return m.Verdict(ev.decision, ev.reason, ev.decided_by, ev.errors)


def compare(ev: m.Event, state: ChainState, answers: list[m.HookAnswer]) -> m.ReplayedCall:
    """One call: what was decided then, what is decided now, and which hooks are behind a change."""
    then = then_of(ev)
    now = m.Verdict(state.decision, state.reason, state.decided_by, len(state.errors))
    changed = [
        name
        for name, a, b in (
            ("decision", then.decision, now.decision),
            ("reason", then.reason, now.reason),
            ("decided_by", then.decided_by, now.decided_by),
        )
        if a != b
    ]
    hooks: list[m.HookRef] = []
    candidates: tuple[m.HookRef | None, ...]
    if "decision" in changed or "decided_by" in changed:
        candidates = (then.decided_by, now.decided_by)
    elif changed:
        candidates = (now.decided_by,)
    else:
        candidates = ()
    for ref in candidates:
        if ref is not None and ref not in hooks:
            hooks.append(ref)
    return m.ReplayedCall(
        ev.seq,
        ev.time,
        ev.point,
        ev.session,
        ev.project,
        then,
        now,
        then.decision != now.decision,
        changed,
        hooks,
        answers,
        list(state.errors),
        list(state.not_run),
    )


async def run_one(plan: Plan, ev: m.Event) -> m.ReplayedCall:
    """Run one journaled call through ``plan`` (observers already stripped) as a replay."""
    recorder = Recorder()
    ctx = CallContext(ev.point, ev.session, ev.project, replay=True)
    state = await recorder.decide(plan, dict(ev.payload), ctx, recorder.lease(plan))
    return compare(ev, state, recorder.answers)
