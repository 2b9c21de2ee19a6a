"""How a seed 004 event's payload becomes a handler's ``(input, output)``, and
how the output a chain of handlers left becomes a HookDecision.

Pure functions, standard library only: the plugin host imports this module in
the plugin's own interpreter. docs/plugins.md has the same table for users.

The rule, for every event:

- ``input`` is the payload without its ``output`` key (handlers may read it;
  changes to it are ignored).
- ``output`` is ``payload["output"]`` when that is a JSON object; otherwise it
  is built from the event's output fields taken from the payload's top level,
  each missing one getting its default. ``tool.execute.before`` is the one
  exception: its output is ``{"args": payload["args"]}``, as in seed 004.

That is the same place the core chain puts a hook's changes (modifiedOutput
replaces ``output``, modifiedInput replaces ``args``), so plugins in several
directories and scopes, and command hooks, compose in one chain.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Factory = Callable[[], Any]


@dataclass(frozen=True, slots=True)
class Shape:
    name: str
    blockable: bool
    outputs: dict[str, Factory] = field(default_factory=dict)  # output field -> default
    verdict: bool = False  # output.status allow|deny|ask is the decision


def _none() -> None:
    return None


def _ask() -> str:
    return "ask"


def _text() -> str:
    return ""


SHAPES: dict[str, Shape] = {
    s.name: s
    for s in (
        Shape("chat.message", True, {"message": dict, "parts": list}),
        Shape("chat.params", True, {"temperature": _none, "topP": _none, "topK": _none, "options": dict}),
        Shape("chat.headers", True, {"headers": dict}),
        Shape("chat.response", False),
        Shape("chat.error", False),
        Shape("chat.compression", False),
        Shape("chat.finished", False),
        Shape("user.approval", True, {"status": _ask}, verdict=True),
        Shape("turn.end", False),
        Shape("command.execute.before", True, {"parts": list}),
        Shape("tool.execute.before", True, {"args": dict}),
        Shape("tool.execute.after", True, {"title": _text, "output": _text, "metadata": dict}),
        Shape("tool.definition", True, {"description": _text, "parameters": dict}),
        Shape("shell.env", True, {"env": dict}),
        Shape("permission.ask", True, {"status": _ask}, verdict=True),
        Shape("experimental.chat.messages.transform", True, {"messages": list}),
        Shape("experimental.chat.system.transform", True, {"system": list}),
        Shape("experimental.session.compacting", True, {"context": list, "prompt": _none}),
        Shape("experimental.text.complete", True, {"text": _text}),
        Shape("config", False),
        Shape("event", False),
    )
}

VERDICTS = frozenset({"allow", "deny", "ask"})


def shape(point: str) -> Shape:
    """The shape of ``point``; points outside seed 004 (seed 000's, custom ones) are observed like ``event``."""
    found = SHAPES.get(point)
    if found is not None:
        return found
    return Shape(point, False)


def split(point: str, payload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(input, output)`` for one call; both are fresh copies the handlers may change."""
    s = shape(point)
    inp = {k: v for k, v in payload.items() if k != "output"}
    if point == "tool.execute.before":
        args = payload.get("args")
        return copy.deepcopy(inp), {"args": copy.deepcopy(args) if isinstance(args, dict) else {}}
    given = payload.get("output")
    if isinstance(given, dict):
        return copy.deepcopy(inp), copy.deepcopy(given)
    out: dict[str, Any] = {}
    for name, default in s.outputs.items():
        out[name] = copy.deepcopy(payload[name]) if name in payload else default()
    return copy.deepcopy(inp), out


def conclude(point: str, before: dict[str, Any], after: dict[str, Any], by: str | None = None) -> dict[str, Any] | None:
    """The HookDecision (as a dict) for a chain that turned ``before`` into ``after``; None: no change.

    ``by`` names the handler that last changed ``status`` (for the reason of a verdict).
    """
    s = shape(point)
    if not s.blockable or after == before:
        return None
    if point == "tool.execute.before":
        args = after.get("args")
        if isinstance(args, dict) and args != before.get("args"):
            return {"modifiedInput": args}
        return None
    answer: dict[str, Any] = {"modifiedOutput": after}
    status = after.get("status")
    if s.verdict and status in VERDICTS and status != before.get("status"):
        answer["decision"] = status
        answer["reason"] = f"{by or 'a plugin'} set status to {status!r}"
    return answer


def blocked(reason: str) -> dict[str, Any]:
    return {"decision": "deny", "reason": reason}
