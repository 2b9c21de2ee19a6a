"""The decision chain's rules, as a pure fold over hook results.

No I/O and no awaiting here: the engine runs the hooks and feeds each answer
to :meth:`ChainState.apply` (or :meth:`ChainState.fail`), which says whether
the chain is over. That keeps seed 000's rules in one readable place:

- ``None`` (abstain): next hook.
- ``continue`` (or an answer with no ``decision``): its modifiedInput replaces
  the ``args`` later hooks see, its modifiedOutput replaces ``output``, its
  injection is appended; next hook.
- ``allow`` / ``deny`` / ``ask``: final, later hooks do not run.
- a hook that errs or times out counts as ``continue`` and is listed as an
  error, unless its ``on_error`` policy is ``deny`` or ``ask`` (fail closed).
- a group of hooks combined ``strictest`` is one step: every member answers the
  same payload (the engine runs them at once) and :meth:`ChainState.fold_group`
  folds their answers: the most restrictive decision wins (deny > defer > ask >
  allow), a member's failure counts as its on_error decision; injections are
  all kept, in member order. A final answer of the group ends the chain as one
  hook's would; otherwise the chain goes on with its rewrites applied.
- agent fields (``agentOutput``) pass through, merged: messages joined,
  ``continue: false`` and the flags win over their defaults (see ``merge_agent``).
- a hook that could not run at all (see ``NotRun``) is listed under
  ``not_run`` with its reason. When that is a fault of hookd's side (its file
  not loaded, its worker or plugin host failed, its input too large) its
  ``on_error`` policy applies as for a failure; an untrusted file's hook never
  decides anything (the user has not accepted it), it is only named.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hookd_client.messages import Decision, DecisionKind, HookError, HookRef, HookRun, NotRun, NotRunReason, Outcome

from hookd.core.registry import Hook
from hookd.core.vocabulary import rewritten_args

INJECTION_SEPARATOR = "\n\n"
FINAL: frozenset[str] = frozenset({"allow", "deny", "ask"})
# Reasons a hook did not run that are no choice of the user's: its on_error policy applies.
FAULTS: frozenset[str] = frozenset(
    {"invalid_file", "not_loaded", "plugin_failed", "worker_failed", "too_large", "disconnected", "deadline"}
)
# The order of restriction a strictest group folds by; ``defer`` is an ``ask`` whose agent output
# says defer (Claude Code pauses the call for a later decision).
RANK = {"deny": 4, "defer": 3, "ask": 2, "allow": 1}
# Agent fields merged by joining (messages), by any-true (flags), by all-true (continue) or by concatenation.
_JOINED = ("systemMessage", "stopReason")
_ANY = ("suppressOutput", "retry", "interrupt")
_LISTS = ("updatedPermissions", "watchPaths")


_KINDS: dict[int, DecisionKind] = {4: "deny", 3: "ask", 2: "ask", 1: "allow"}


def merge_agent(into: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any] | None:
    """Agent output fields of two answers combined, the earlier answer's first; pure."""
    if not new:
        return into
    out = dict(into) if into else {}
    for key, value in new.items():
        if key not in out:
            out[key] = value
        elif key in _JOINED and isinstance(value, str) and isinstance(out[key], str):
            out[key] = f"{out[key]}\n{value}"
        elif key in _ANY:
            out[key] = bool(out[key]) or bool(value)
        elif key == "continue":
            out[key] = out[key] is not False and value is not False
        elif key in _LISTS and isinstance(value, list) and isinstance(out[key], list):
            out[key] = [*out[key], *value]
    return out


def rank(decision: str | None, agent_output: dict[str, Any] | None) -> int:
    if decision == "ask" and agent_output and agent_output.get("defer") is True:
        return RANK["defer"]
    return RANK.get(decision or "", 0)


class Failed(NamedTuple):
    """A group member that failed or timed out."""

    code: str
    message: str


class Skipped(NamedTuple):
    """A group member that could not run."""

    reason: NotRunReason
    message: str


Answer = Decision | None | Failed | Skipped


class HookNotRun(Exception):
    """Raised by a runner that cannot run a hook at all (its worker failed, its plugin host is
    not loaded or failed, its input is too large for it); the engine records it with
    :meth:`ChainState.skip`, never as an answer."""

    def __init__(self, reason: NotRunReason, message: str) -> None:
        super().__init__(message)
        self.reason: NotRunReason = reason
        self.message = message


def once(release: Callable[[], None]) -> Callable[[], None]:
    """A lease's release function that acts on its first call only: the engine may release on
    both the normal end and a cancellation of a call, and must not count a lease twice."""
    done = False

    def release_once() -> None:
        nonlocal done
        if not done:
            done = True
            release()

    return release_once


@dataclass(slots=True)
class ChainState:
    payload: dict[str, Any]
    decision: DecisionKind | None = None
    reason: str | None = None
    injections: list[str] = field(default_factory=list)
    modified_input: dict[str, Any] | None = None
    modified_output: Any = None
    decided_by: HookRef | None = None
    errors: list[HookError] = field(default_factory=list)
    not_run: list[NotRun] = field(default_factory=list)
    agent_output: dict[str, Any] | None = None
    runs: list[HookRun] = field(default_factory=list)  # each hook's result, in order, for the event and stats

    def take(self, hook: Hook, answer: Answer) -> bool:
        """One decision hook's answer, whatever it is, folded into the chain; True when it ends the
        chain. A failure is judged by the hook's on_error, a hook that did not run is named, and a
        runner that runs several handlers (plugins) has the failed ones recorded. The one step of
        every chain, cold and warm."""
        kind = type(answer)
        if kind is Failed:
            return self.fail(hook, answer.code, answer.message)  # type: ignore[union-attr]
        if kind is Skipped:
            return self.skip(hook, answer.reason, answer.message)  # type: ignore[union-attr, arg-type]
        if answer is not None and kind is not Decision:
            self.errors.extend(getattr(answer, "handler_errors", ()))
        return self.apply(hook, answer)  # type: ignore[arg-type]

    def apply(self, hook: Hook, result: Decision | None) -> bool:
        """Fold one hook's answer in; True when the chain is decided."""
        if result is None:
            return False
        if result.agent_output:
            self.agent_output = merge_agent(self.agent_output, result.agent_output)
        if result.injection:
            self.injections.append(result.injection)
        if result.modified_input is not None:
            self.modified_input = rewritten_args(self.payload, result.modified_input)
            self.payload = {**self.payload, "args": self.modified_input}
        if result.modified_output is not None:
            self.modified_output = result.modified_output
            self.payload = {**self.payload, "output": result.modified_output}
        if result.decision in FINAL:
            self.decision = result.decision
            self.reason = result.reason
            self.decided_by = hook.ref
            return True
        return False

    def fail(self, hook: Hook, code: str, message: str) -> bool:
        """Record a failed hook and apply its on_error policy; True when that decides."""
        self.errors.append(HookError(hook.ref, code, message))
        if hook.on_error == "continue":
            return False
        self.decision = hook.on_error
        self.reason = f"hook {hook.name!r} failed ({code}): {message}"
        self.decided_by = hook.ref
        return True

    def skip(self, hook: Hook, reason: NotRunReason, message: str) -> bool:
        """Record a hook that did not run; True when its on_error policy decides the call."""
        self.not_run.append(NotRun(hook.ref, reason, message))
        if reason not in FAULTS or hook.type != "decision" or hook.on_error == "continue" or self.decision in FINAL:
            return False
        self.decision = hook.on_error
        self.reason = f"hook {hook.name!r} did not run ({reason}): {message}"
        self.decided_by = hook.ref
        return True

    def fold_group(self, members: Sequence[tuple[Hook, Answer]]) -> bool:
        """Fold the answers of a strictest group's members (in member order) as one step; True when decided."""
        best, best_rank, reason = None, 0, None
        injections: list[str] = []
        modified_input: dict[str, Any] | None = None
        modified_output: Any = None
        agent: dict[str, Any] | None = None
        for hook, answer in members:
            kind: str | None = None
            why: str | None = None
            if isinstance(answer, Failed):
                self.errors.append(HookError(hook.ref, answer.code, answer.message))
                if hook.on_error != "continue":
                    kind, why = hook.on_error, f"hook {hook.name!r} failed ({answer.code}): {answer.message}"
            elif isinstance(answer, Skipped):
                self.not_run.append(NotRun(hook.ref, answer.reason, answer.message))
                if answer.reason in FAULTS and hook.on_error != "continue":
                    kind, why = hook.on_error, f"hook {hook.name!r} did not run ({answer.reason}): {answer.message}"
            elif answer is not None:
                if answer.injection:
                    injections.append(answer.injection)
                if answer.modified_input is not None and modified_input is None:
                    modified_input = answer.modified_input
                if answer.modified_output is not None and modified_output is None:
                    modified_output = answer.modified_output
                agent = merge_agent(agent, answer.agent_output)
                if answer.decision in FINAL:
                    kind, why = answer.decision, answer.reason
            level = rank(kind, answer.agent_output if isinstance(answer, Decision) else None)
            if level > best_rank:
                best, best_rank, reason = hook, level, why
        self.injections.extend(injections)
        if modified_input is not None and best_rank != RANK["deny"]:
            self.modified_input = rewritten_args(self.payload, modified_input)
            self.payload = {**self.payload, "args": self.modified_input}
        if modified_output is not None:
            self.modified_output = modified_output
            self.payload = {**self.payload, "output": modified_output}
        if agent is not None:
            agent.pop("defer", None)
            if best_rank == RANK["defer"]:
                agent["defer"] = True
            self.agent_output = merge_agent(self.agent_output, agent)
        if best is None:
            return False
        self.decision = _KINDS[best_rank]
        self.reason = reason
        self.decided_by = best.ref
        return True

    def outcome(self, request_id: int) -> Outcome:
        return Outcome(
            request_id,
            self.decision,
            self.reason,
            INJECTION_SEPARATOR.join(self.injections) if self.injections else None,
            self.modified_input,
            self.modified_output,
            self.decided_by,
            self.errors,
            self.not_run,
            self.agent_output,
        )

    def summary(self) -> dict[str, Any]:
        """What observers of a decided point see under ``outcome``."""
        out: dict[str, Any] = {"decision": self.decision}
        if self.reason is not None:
            out["reason"] = self.reason
        if self.decided_by is not None:
            out["decidedBy"] = {
                "name": self.decided_by.name,
                "scope": self.decided_by.scope,
                "source": self.decided_by.source,
            }
        if self.errors:
            out["errors"] = len(self.errors)
        if self.not_run:
            out["notRun"] = [{"name": n.hook.name, "scope": n.hook.scope, "reason": n.reason} for n in self.not_run]
        return out
