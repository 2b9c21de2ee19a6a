"""Built-in hooks: hookd's own guard packs (hookd/guards), run inside the daemon.

A hook with ``builtin: [git, files]`` starts no process and no worker: its packs read the call's
canonical tool and arguments (``toolName``, ``args``), its working directory, the project hookd
resolved for it and the user's home, and answer at once. The runner's answer goes through the
engine like any hook's: its ``on_error`` judges a pack that raises (the engine turns the exception
into a failed hook), a shadow built-in hook is recorded and never applied, and the trace, the
call's event and stats show the rule that fired (the answer's ``rule``).

``answer_now`` is the same answer without a coroutine: the engine's inline path
(hookd/engine/inline.py) folds it without a task, so a decide through the packs costs what the
packs cost.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hookd_client.messages import Decision

from hookd.config.builtinchecks import expand
from hookd.core.registry import CallContext, Hook
from hookd.core.vocabulary import ARGS_KEY, TOOL_KEY
from hookd.guards.check import check as check_packs
from hookd.guards.model import PACKS, Context, Finding
from hookd.guards.options import OptionsError, policy
from hookd.guards.policy import Policy

# What runs the packs: hookd.guards.check, or (in a test of how a failing pack is handled) any
# function of the same shape.
Check = Callable[[Sequence[str], str, Mapping[str, Any], Context, Policy], "Finding | None"]


def reason_of(finding: Finding) -> str:
    """The reason the agent (and the person behind it) reads: the rule first, so it can be allowed by name."""
    return f"{finding.rule}: {finding.reason}"


def _cwd(payload: Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """The call's working directory: the tool's own (a shell tool's ``cwd`` argument), else the
    event's (``cwd``, or the agent's input under ``hookInput``); None when the call names none."""
    cwd = args.get("cwd")
    if type(cwd) is str and cwd:
        return cwd
    cwd = payload.get("cwd")
    if type(cwd) is str and cwd:
        return cwd
    agent = payload.get("hookInput")
    cwd = agent.get("cwd") if isinstance(agent, Mapping) else None
    return cwd if type(cwd) is str and cwd else None


class BuiltinRunner:
    """Runs one built-in hook's packs under its policy. One per hook: the policy is read once, when
    the hook is made (``OptionsError`` then, naming the option), never per call."""

    __slots__ = ("check", "home", "packs", "policy")

    def __init__(
        self, packs: Sequence[str], options: Mapping[str, Any] | None, home: str | None = None, check: Check | None = None
    ) -> None:
        self.packs = tuple(expand(list(packs)))
        unknown = [p for p in self.packs if p not in PACKS]
        if unknown:
            raise OptionsError(f"builtin: unknown pack {unknown[0]!r}; the packs are {', '.join(PACKS)} (or default)")
        self.policy = policy(options)
        self.home = home if home is not None else os.path.expanduser("~")
        self.check: Check = check if check is not None else check_packs

    def answer_now(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        """The packs' answer for one call: a deny or an ask naming the rule, or None (abstain).
        Raises whatever a pack raises: the engine makes that a failed hook under its on_error."""
        tool = payload.get(TOOL_KEY)
        if not isinstance(tool, str):
            return None  # not a tool call: nothing for a guard pack to judge
        args = payload.get(ARGS_KEY)
        if not isinstance(args, Mapping):
            args = {}
        found = self.check(self.packs, tool, args, Context(_cwd(payload, args), ctx.project, self.home), self.policy)
        if found is None:
            return None
        return Decision(found.decision, reason_of(found), rule=found.rule)  # type: ignore[arg-type]

    async def __call__(self, hook: Hook, payload: dict[str, Any], ctx: CallContext) -> Decision | None:
        return self.answer_now(hook, payload, ctx)
