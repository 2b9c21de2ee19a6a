"""The hook point catalog: every point of seed 000 and every event of seed 004.

A point is a ``decision`` point when either seed lets a hook steer it there
(seed 000's decision points, seed 004's blockable events), or when a later
issue needs one (agent.turn.start, agent.turn.stop and agent.subagent.complete, for the agent bridge);
observers may be
registered on any point, decision hooks only on decision points. Names under
``custom.`` are free for users and accept both kinds. ``event`` is the
catch-all: an observer on it sees every event.
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass
from typing import Literal

Kind = Literal["observer", "decision"]

CUSTOM_PREFIX = "custom."
CATCH_ALL = "event"


@dataclass(frozen=True, slots=True)
class Point:
    name: str
    kind: Kind
    seeds: tuple[str, ...]
    meaning: str
    promoted: bool = False  # a decision point in hookd, an observer point in its seed


_S0 = "000"
_S4 = "004"

POINTS: dict[str, Point] = {
    p.name: p
    for p in (
        # seed 000: tool execution
        Point("tool.execute.before", "decision", (_S0, _S4), "before a tool runs; may rewrite its args"),
        Point("tool.execute.after", "decision", (_S0, _S4), "after a tool succeeded; may rewrite its output"),
        Point("tool.execute.error", "observer", (_S0,), "after a tool failed"),
        Point("tool.execute.denied", "observer", (_S0,), "after approval denied a tool"),
        Point("tool.approval.pre", "decision", (_S0,), "before the approval decision: allow, deny, ask"),
        Point("tool.approval.post", "observer", (_S0,), "after the approval decision"),
        # seed 000: LLM calls
        Point("llm.request.before", "observer", (_S0,), "before an LLM call"),
        Point("llm.response.after", "observer", (_S0,), "after an LLM call succeeded"),
        Point("llm.response.error", "observer", (_S0,), "after an LLM call failed"),
        # seed 000: session
        Point("session.save.before", "observer", (_S0,), "before the session is saved"),
        Point("session.save.after", "observer", (_S0,), "after the session was saved"),
        # seed 000: agent lifecycle
        # agent.turn.start/stop are observer points in seed 000; the agent bridge needs
        # decisions there: an injection when a session starts, a deny that keeps the agent going.
        Point("agent.turn.start", "decision", (_S0,), "an agent turn starts; may inject context", promoted=True),
        Point("agent.step.before", "observer", (_S0,), "before an agent step runs"),
        Point("agent.turn.stop", "decision", (_S0,), "an agent turn is stopping; deny keeps the agent going", promoted=True),
        Point("agent.turn.end", "observer", (_S0,), "an agent turn ended"),
        # seed 000: subagents
        Point("agent.subagent.spawn.before", "decision", (_S0,), "before a subagent is created; may deny"),
        Point("agent.subagent.spawn.after", "observer", (_S0,), "after a subagent was created"),
        # An observer point in seed 000; Claude Code lets a SubagentStop hook keep the subagent working.
        Point("agent.subagent.complete", "decision", (_S0,), "a subagent is finishing; deny keeps it working", promoted=True),
        # seed 004 (tool.execute.before/after are above)
        Point("chat.message", "decision", (_S4,), "a user message arrived; may edit its text and parts"),
        Point("chat.params", "decision", (_S4,), "before each LLM call; may change temperature, topP, topK"),
        Point("chat.headers", "decision", (_S4,), "before each LLM call; may change HTTP headers"),
        Point("chat.response", "observer", (_S4,), "an LLM answered: tokens, cost, duration"),
        Point("chat.error", "observer", (_S4,), "an LLM call failed"),
        Point("chat.compression", "observer", (_S4,), "context was compressed: tokens before and after"),
        Point("chat.finished", "observer", (_S4,), "a chat session ended: token use and run info"),
        Point("user.approval", "decision", (_S4,), "a user confirmation is needed for a risky action"),
        Point("turn.end", "observer", (_S4,), "a conversation turn ended: duration, stop reason"),
        Point("command.execute.before", "decision", (_S4,), "before a command runs; may edit its parts"),
        Point("tool.definition", "decision", (_S4,), "before tool definitions go to the LLM; may edit them"),
        Point("shell.env", "decision", (_S4,), "shell environment requested; may add or change variables"),
        Point("permission.ask", "decision", (_S4,), "a permission check: allow, deny or ask"),
        Point(
            "experimental.chat.messages.transform",
            "decision",
            (_S4,),
            "before the message list goes to the LLM; may transform it",
        ),
        Point(
            "experimental.chat.system.transform",
            "decision",
            (_S4,),
            "before the system prompt is sent; may transform it",
        ),
        Point(
            "experimental.session.compacting",
            "decision",
            (_S4,),
            "before context compaction; may set the compaction prompt",
        ),
        Point("experimental.text.complete", "decision", (_S4,), "a text completion finished; may edit it"),
        Point("config", "observer", (_S4,), "configuration loaded"),
        # hookd's own
        Point(CATCH_ALL, "observer", (_S4,), "catch-all: observers here see every event"),
    )
}


class UnknownPoint(ValueError):
    def __init__(self, name: str) -> None:
        if name in INTERNAL:
            # The daemon's own events are published by the daemon alone: they are subscribed to, not emitted.
            near: list[str] = []
            self.reason = (
                f"{name!r} is the daemon's own event: nobody else emits it, and hooks see it through the catch-all "
                f"point `event`; subscribe to it (`hookd tail --point {name}`)"
            )
            text = self.reason
        else:
            near = nearest(name)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            self.reason = f"unknown hook point {name!r} (`hookd points` lists them; names under {CUSTOM_PREFIX!r} are free)"
            text = f"unknown hook point {name!r}{hint} (`hookd points` lists them; names under {CUSTOM_PREFIX!r} are free)"
        super().__init__(text)  # reason: the same without the suggestions, for who shows them apart
        self.name = name
        self.suggestions = near


def nearest(name: str, n: int = 3) -> list[str]:
    return list(_nearest(name[:MAX_SUGGESTED], n))


MAX_SUGGESTED = 256  # no point name is near a longer one; past it, the comparison only costs time


@functools.lru_cache(maxsize=256)
def _nearest(name: str, n: int) -> tuple[str, ...]:
    # A client that keeps sending the same misspelt point pays for the comparison once.
    return tuple(difflib.get_close_matches(name, list(POINTS), n=n, cutoff=0.5))


def is_custom(name: str) -> bool:
    return name.startswith(CUSTOM_PREFIX) and len(name) > len(CUSTOM_PREFIX)


def lookup(name: str) -> Point:
    """The catalog entry for ``name``; custom points accept both kinds. Raises UnknownPoint."""
    point = POINTS.get(name)
    if point is not None:
        return point
    if is_custom(name):
        return Point(name, "decision", (), "user-defined point")
    raise UnknownPoint(name)


class WrongKind(ValueError):
    pass


def check_hook(name: str, hook_type: str) -> Point:
    """The point a hook of ``hook_type`` may be registered on. Raises UnknownPoint or WrongKind."""
    point = lookup(name)
    if hook_type == "decision" and point.kind != "decision":
        raise WrongKind(
            f"{name!r} is an observer point; decision hooks need a decision point "
            f"(use type: observer, or one of: {', '.join(decision_points()[:4])}, ...)"
        )
    return point


def decision_points() -> list[str]:
    return [p.name for p in POINTS.values() if p.kind == "decision"]


def observer_points() -> list[str]:
    return [p.name for p in POINTS.values() if p.kind == "observer"]


# --------------------------------------------------------------- internal events

# Field types as the catalog spells them: str, int, float, bool, any; `T|null`; list[T]; map[K,V].
# A field ending in `?` is present only sometimes. Every internal event may carry the session
# and project of the call that caused it in the event's own `session` and `project`.


@dataclass(frozen=True, slots=True)
class InternalPoint:
    name: str
    meaning: str
    payload: dict[str, str]


_HOOK_REF = {"hook": "str", "scope": "str", "source": "str"}
_OPT_HOOK_REF = {"hook?": "str", "scope?": "str", "source?": "str"}

INTERNAL: dict[str, InternalPoint] = {
    p.name: p
    for p in (
        InternalPoint("hookd.daemon.started", "the daemon started", {"pid": "int", "version": "str"}),
        InternalPoint("hookd.daemon.stopping", "a stop began: in-flight calls drain", {"pid": "int"}),
        InternalPoint("hookd.daemon.stopped", "the stop is done (journal only: subscribers are closed before it)", {"pid": "int"}),
        InternalPoint("hookd.hook.error", "a hook failed", {**_HOOK_REF, "type": "str", "point": "str", "message": "str"}),
        InternalPoint("hookd.hook.timeout", "a hook timed out", {**_HOOK_REF, "type": "str", "point": "str", "message": "str"}),
        InternalPoint("hookd.hook.shed", "observer calls were shed under load", {**_HOOK_REF, "point": "str", "shed": "int"}),
        InternalPoint(
            "hookd.replay.done",
            "`hookd replay` ran journaled calls again (none of them is published as a call)",
            {"calls": "int", "differ": "int", "unreadable": "int", "first": "int|null", "last": "int|null"},
        ),
        InternalPoint(
            "hookd.config.reloaded",
            "a hook file was (re)loaded and changed the hooks, or was accepted again after a rejection (fixed)",
            {
                "file": "str",
                "scope": "str",
                "project": "str|null",
                "trusted": "bool",
                "hooks": "int",
                "added": "list[str]",
                "removed": "list[str]",
                "changed": "list[str]",
                "untrusted?": "list[str]",
                "fixed?": "bool",
            },
        ),
        InternalPoint(
            "hookd.config.rejected",
            "a hook file was invalid; its previous hooks stay",
            {"file": "str", "scope": "str", "project": "str|null", "problems": "list[str]", "in_force": "str"},
        ),
        InternalPoint(
            "hookd.hooks.untrusted_skipped",
            "an untrusted project file's hooks were skipped (once per file version)",
            {"file": "str", "project": "str", "point": "str", "hooks": "list[str]", "reason": "str"},
        ),
        InternalPoint(
            "hookd.hook.toggled",
            "enable_hook / disable_hook",
            {"name": "str", "project": "str|null", "enabled": "bool", "hooks": "int"},
        ),
        InternalPoint("hookd.trust.granted", "trust: file -> the first 12 hex digits of its sha256", {"files": "map[str,str]"}),
        InternalPoint("hookd.trust.revoked", "untrust: the files forgotten", {"files": "list[str]"}),
        InternalPoint("hookd.session.attached", "attach_session / attach_hooks: hooks added", {"hooks": "int"}),
        InternalPoint("hookd.session.disposed", "a session ended (reason: disposed | owner_gone)", {"reason": "str", "hooks": "int"}),
        InternalPoint(
            "hookd.subscriber.behind",
            "a subscriber's queue overflowed (once per episode)",
            {"peer": "int", "client": "str", "queued": "int", "queued_bytes": "int"},
        ),
        InternalPoint("hookd.subscriber.gap", "a subscriber was told of its gap", {"peer": "int", "client": "str", "missed": "int"}),
        InternalPoint(
            "hookd.event.unencodable",
            "an event could not be encoded; this marker took its seq",
            {"point": "str", "kind": "str", "reason": "str", "payload?": "any"},
        ),
        InternalPoint("hookd.journal.failed", "a journal write failed", {"path": "str", "error": "str"}),
        InternalPoint(
            "hookd.journal.lost",
            "events that are not in the journal (reason: write failed | unclean stop | backlog)",
            {"count?": "int", "from?": "int", "to?": "int", "reason": "str", "error?": "str", "path?": "str"},
        ),
        InternalPoint("hookd.journal.repaired", "a torn last line of the journal was cut off", {"path": "str", "torn_bytes": "int"}),
        InternalPoint("hookd.journal.error", "the seq reservation file failed", {"path": "str", "error": "str", "what": "str"}),
        InternalPoint("hookd.worker.failed", "a warm worker is no longer restarted", {"worker": "str", "failures": "int", "error": "str"}),
        InternalPoint(
            "hookd.approval.offered",
            "a decide whose chain ended in ask was offered to the connected approvers",
            {"offer": "int", "point": "str", "reason": "str|null", "approvers": "int", "timeout": "float", **_OPT_HOOK_REF},
        ),
        InternalPoint(
            "hookd.approval.answered",
            "an approver's answer decided an offered call (the first answer wins)",
            {"offer": "int", "decision": "str", "reason": "str", "approver": "str", "client": "str", "pid": "int", "waited": "float"},
        ),
        InternalPoint(
            "hookd.approval.expired",
            "no approver answered within the approval deadline (or the daemon stopped): the default applied",
            {"offer": "int", "decision": "str", "reason": "str", "waited": "float"},
        ),
        InternalPoint(
            "hookd.plugin.loaded",
            "a plugin directory's host loaded",
            {"directory": "str", "scope": "str", "handlers": "map[str,list[str]]"},
        ),
        InternalPoint(
            "hookd.plugin.error",
            "a plugin could not load, install or start, or a handler raised (kind: untrusted | install | host | load | handler)",
            {"kind": "str", "directory": "str", "scope": "str", "point": "str", "handler": "str", "message": "str"},
        ),
    )
}
