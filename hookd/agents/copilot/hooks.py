"""Copilot CLI's hook contract, from the hook's side: what a hook written for Copilot is given and what
its answer means, as pure functions gathered in ``FORMAT`` (hookd/agents/adapter.py does the process work;
`hookd import copilot` writes hooks that use it).

``hook_input`` rebuilds Copilot's input from hookd's payload (the chain's current ``args`` and ``output``
included, so an earlier hook's rewrite is seen). ``answer`` reads the hook as Copilot does (observed with
1.0.102): its stdout's JSON object; on preToolUse an exit code 2 denies, with Copilot's own reason (stderr
is not passed on); any other failure lets the event go on. An ``allow`` abstains, so that it never ends
hookd's chain before the guards after it.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Any

from hookd.agents import hook_format
from hookd.agents.copilot.protocol import INPUT_NAMES, ROUTES, TOP_LEVEL_BLOCK
from hookd.agents.dialect import AGENT_ENV, HOOK_INPUT, camel
from hookd.core import vocabulary

POINT_EVENTS = {point: event for event, (point, _) in ROUTES.items()}
_COPILOT_NAMES = {route_name: name for name, route_name in INPUT_NAMES.items() if name != "toolInput"}
# The fields Copilot itself names in snake_case (agentStop's), which the payload carries in camelCase.
_SNAKE = {"stopHookActive": "stop_hook_active"}
_NOT_INPUT = frozenset({HOOK_INPUT, AGENT_ENV, vocabulary.AGENT_KEY, vocabulary.AGENT_TOOL_KEY, vocabulary.TOOL_KEY, "args", "output"})


def hook_input(payload: Mapping[str, Any], point: str, event: str, session: str, project: str) -> dict[str, Any]:
    """Copilot's hook input for a hookd call on ``point``, for a hook configured on ``event``."""
    event = event or POINT_EVENTS.get(point, "")
    kept = payload.get(HOOK_INPUT)
    data: dict[str, Any] = {}
    for key, value in (kept if isinstance(kept, dict) else {}).items():
        if key != "hook_event_name":
            data[_COPILOT_NAMES.get(key) or camel(key)] = value
    data.setdefault("sessionId", session)
    data.setdefault("timestamp", int(time.time() * 1000))
    data.setdefault("cwd", project)
    data.update({_SNAKE.get(k, k): v for k, v in payload.items() if k not in _NOT_INPUT})
    name, args = vocabulary.agent_input(payload)
    if name is not None:
        data["toolName"] = name
        data["toolInput" if event == "permissionRequest" else "toolArgs"] = args
    if "output" in payload:
        data["toolResult"] = payload["output"]
    return data


def read(stdout: str) -> dict[str, Any] | None:
    """The hook's output object (None when it printed none)."""
    try:
        value = json.loads(stdout.strip() or "null")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def answer(event: str, code: int, stdout: str) -> dict[str, Any] | None:
    """Seed 000's HookDecision (as JSON data) for a Copilot hook's result; None abstains."""
    if code == 2 and event == "preToolUse":
        return {"decision": "deny", "reason": f"Denied by {event} hook: hook exited with code 2"}
    obj = read(stdout) if code == 0 else None
    if obj is None:
        return None
    out: dict[str, Any] = {}
    if event == "preToolUse":
        decision = obj.get("permissionDecision")
        if decision in ("deny", "ask"):
            out["decision"] = decision
            why = obj.get("permissionDecisionReason")
            out["reason"] = why if isinstance(why, str) and why else f"Denied by {event} hook"
        if decision != "deny" and isinstance(obj.get("modifiedArgs"), dict):
            out["modifiedInput"] = obj["modifiedArgs"]
    elif event == "permissionRequest":
        if obj.get("behavior") == "deny":
            message = obj.get("message")
            out.update(decision="deny", reason=message if isinstance(message, str) and message else f"Denied by {event} hook")
    elif event in TOP_LEVEL_BLOCK and obj.get("decision") == "block":
        why = obj.get("reason")
        out.update(decision="deny", reason=why if isinstance(why, str) and why else f"Blocked by {event} hook")
    if event == "postToolUse" and isinstance(obj.get("modifiedResult"), dict):
        out["modifiedOutput"] = obj["modifiedResult"]
    context = obj.get("additionalContext")
    if isinstance(context, str) and context:
        out["injection"] = context
    if obj.get("suppressOutput") is True:
        out["agentOutput"] = {"suppressOutput": True}
    return out or None


def _cwd(data: Mapping[str, Any]) -> str | None:
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None


# `hookd bridge run-hook copilot --event EVENT -- CMD...`: a Copilot CLI hook, run by hookd/agents/adapter.py in
# the input's working directory.
FORMAT = hook_format.per_event(
    "copilot",
    "Run a hook written for Copilot CLI under hookd: hookd's payload becomes Copilot's hook input on CMD's "
    "stdin, and CMD's output JSON or exit code becomes a hookd decision.",
    "the Copilot CLI event the hook was configured for (default: the point's)",
    hook_input,
    POINT_EVENTS,
    _cwd,
    lambda event, code, stdout, _stderr, _payload: answer(event, code, stdout),
)
