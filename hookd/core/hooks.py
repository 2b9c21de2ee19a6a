"""What a hook is, what a call's plan holds, and what the registry asks about trust.

Plain data shared by the registry (which keeps hooks), the engine (which runs a plan)
and the runners (which run one hook).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from hookd_client.messages import ChainEntry, Combine, Decision, HookRef, HookSpec, HookType, NotRunReason, OnError, Scope

from hookd.core.refusal import Refusal


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a file's hooks may run, and why: the trust store's answer (hookd/config/trust.py)."""

    trusted: bool
    reason: str


# A daemon happening told as an internal event: (point, payload, session, project). The parts that
# have happenings to tell (the engine, the runners, the registry) are given one when they are made.
Report = Callable[[str, dict[str, Any], "str | None", "str | None"], None]


class HookFailure(Refusal):
    """A hook failed in a way the chain reports: ``code`` is ``error`` or ``timeout``. Every runner raises it."""


ALWAYS = Verdict(True, "the user's own file: always trusted")


@dataclass(frozen=True, slots=True)
class CallContext:
    point: str
    session: str | None
    project: str | None
    # A journaled call run again (hookd/daemon/replay.py): runners tell the hook (HOOKD_REPLAY=1, or a
    # ``replay`` field where a hook sees no environment of its own) so it can skip side effects.
    replay: bool = False
    # When the caller stops waiting (time.monotonic()), from a decide's ``timeout``; None: it waits.
    # Every wait of the call ends before it (hook timeouts, an approval), so the caller reads a
    # fail-closed guard's deny instead of giving up on an answer and letting the tool run.
    deadline: float | None = None


# Seconds (or this share of a short ``timeout``) kept back from a caller's deadline, for the answer
# to be written and read before the caller gives up.
ANSWER_MARGIN = 0.25
ANSWER_SHARE = 0.1


def deadline_of(timeout: float | None) -> float | None:
    """The monotonic time by which a call whose caller waits ``timeout`` seconds must be answered."""
    if timeout is None:
        return None
    return time.monotonic() + max(0.0, timeout - min(ANSWER_MARGIN, timeout * ANSWER_SHARE))


class OutOfTime(Exception):
    """The caller stops waiting before this hook could start: it is not run (``deadline``)."""


def hook_timeout(timeout: float, ctx: CallContext) -> tuple[float, bool]:
    """(seconds this hook may take, whether the caller's deadline cut it shorter than its own
    ``timeout``). Raises OutOfTime when the deadline has passed."""
    deadline = ctx.deadline
    if deadline is None:
        return timeout, False
    left = deadline - time.monotonic()
    if left <= 0:
        raise OutOfTime
    return (left, True) if left < timeout else (timeout, False)


class Runner(Protocol):
    """Runs one hook. Raises HookFailure (or anything) when the hook fails."""

    def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Awaitable[Decision | None]: ...


@dataclass(frozen=True, slots=True)
class Group:
    """A named group of decision hooks from one file; equal groups are the same group."""

    scope: Scope
    owner: str
    source: str
    name: str
    combine: Combine = "first"

    @property
    def parallel(self) -> bool:
        return self.combine == "strictest"


@dataclass(slots=True, eq=False)
class Hook:
    name: str
    point: str
    type: HookType
    scope: Scope
    owner: str  # "" for global, the project path, or the session id
    source: str  # the file it came from, or "session:<id>", "client:<pid>"
    runner: Runner
    priority: int = 0
    enabled: bool = True
    timeout: float = 30.0
    on_error: OnError = "continue"
    seq: int = 0
    rank: int = 0  # when the hook's file first registered anything: stable across reloads
    handle: str = ""
    spec: HookSpec | None = None
    # A project file's hook: the name trust knows its file by and the SHA-256 of the bytes it was
    # loaded from. Whether it may run is asked of the trust store when a call is planned.
    trust_key: str = ""
    sha: str = ""
    matcher: Callable[[dict[str, Any]], bool] | None = None  # the `match` filter; None runs on every payload
    ref: HookRef = field(init=False)
    # The group this hook belongs to (from its spec): hooks of one file with one group name run as
    # one step of the chain, combined the group's way. None: a step of its own.
    group: Group | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.ref = HookRef(self.name, self.scope, self.source)
        spec = self.spec
        if spec is not None and spec.group and self.type == "decision":
            self.group = Group(self.scope, self.owner, self.source, spec.group, spec.combine or "first")

    @property
    def shadow(self) -> bool:
        """A shadow hook: its answers are recorded, never applied."""
        return self.spec is not None and getattr(self.spec, "shadow", False) is True

    def entry(self, enabled: bool, trusted: bool = True) -> ChainEntry:
        return ChainEntry(
            self.name,
            self.type,
            self.scope,
            self.priority,
            self.source,
            self.point,
            enabled,
            trusted,
            self.type == "decision" and self.shadow,
        )


class TrustGate(Protocol):
    """What the registry asks about trust (hookd.trust.TrustStore)."""

    generation: int

    def file_verdict(self, key: str, sha256: str, file: str, project: str) -> Verdict: ...


# Why a hook configured for a call does not run: the hook (or, for a file none of whose hooks
# could be loaded, a reference naming the file), the reason, and a message for the user.
NotRunEntry = tuple["Hook | HookRef", NotRunReason, str]
ShadowSkip = tuple["Hook", NotRunReason, str]  # a shadow hook that will not run: always a hook of the registry


@dataclass(frozen=True, slots=True)
class Plan:
    """The hooks one call runs, in order, already filtered to the enabled ones; and the
    decision hooks configured for it that will not run (``not_run``), with why."""

    decisions: tuple[Hook, ...]
    observers: tuple[Hook, ...]
    skipped: tuple[Hook, ...] = ()
    not_run: tuple[NotRunEntry, ...] = ()
    # Shadow decision hooks: run beside the chain, their answers recorded and never applied
    # (docs/observe.md); and the shadow hooks that will not run (untrusted), with why.
    shadows: tuple[Hook, ...] = ()
    shadow_skips: tuple[ShadowSkip, ...] = ()
    # Nothing runs and nothing is named: the call's outcome is empty. One test on the decide hot path.
    idle: bool = field(init=False, default=False)
    # Every decision hook answers at once, without awaiting (a runner with ``answer_now``: the
    # built-in guards), none in a parallel group, nothing named as not run and no shadow: the
    # engine folds the chain in the call's own pass (Engine.decide_now), with no task.
    inline: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        idle = not (self.decisions or self.observers or self.not_run or self.shadows or self.shadow_skips)
        object.__setattr__(self, "idle", idle)
        inline = bool(self.decisions) and not (self.not_run or self.shadows or self.shadow_skips)
        for hook in self.decisions if inline else ():
            if getattr(hook.runner, "answer_now", None) is None or (hook.group is not None and hook.group.parallel):
                inline = False
                break
        object.__setattr__(self, "inline", inline)


@dataclass(slots=True)
class Session:
    id: str
    project: str | None
    owner: object | None = None
    created: float = field(default_factory=time.monotonic)
