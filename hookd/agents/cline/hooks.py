"""Cline's hook contract, from the hook's side: what a hook file written for Cline is given and what its
answer means, as pure functions gathered in ``FORMAT`` (hookd/agents/adapter.py does the process work;
`hookd import cline` writes hooks that use it).

``hook_input`` rebuilds Cline's input from hookd's payload: the task, the workspace, the tool call (with
the chain's current arguments, so an earlier hook's rewrite is seen) and its string-encoded copy under
``preToolUse.parameters``. ``answer`` reads the hook as Cline does (3.0.65): the last ``HOOK_CONTROL<TAB>``
line of stdout, else all of stdout, as a JSON object; exit codes and anything else are ignored.
``cancel`` stops the tool call (in Cline it ends the whole run; through hookd only this call is denied,
and the model reads why); ``overrideInput`` rewrites the call; ``context`` is added for the model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import hook_format
from hookd.agents.cline.protocol import ROUTES
from hookd.agents.dialect import AGENT_ENV, HOOK_INPUT, camel
from hookd.core import vocabulary

POINT_EVENTS = {point: event for event, (point, _) in ROUTES.items()}
HOOK_NAMES = {
    "TaskStart": "agent_start",
    "TaskResume": "agent_resume",
    "TaskCancel": "agent_abort",
    "TaskComplete": "agent_end",
    "TaskError": "agent_error",
    "PreToolUse": "tool_call",
    "PostToolUse": "tool_result",
    "UserPromptSubmit": "prompt_submit",
    "SessionShutdown": "session_shutdown",
}
# Cline's own names of the fields route keeps under hookInput (some of Cline's are snake_case already).
_CLINE_NAMES = {"session_id": "taskId", "agent_id": "agent_id", "parent_agent_id": "parent_agent_id"}
_NOT_INPUT = frozenset(
    {
        HOOK_INPUT,
        AGENT_ENV,
        vocabulary.AGENT_KEY,
        vocabulary.AGENT_TOOL_KEY,
        vocabulary.TOOL_KEY,
        "args",
        "output",
        "toolCallId",
        "toolError",
    }
)


def parameters(args: Any) -> dict[str, str]:
    """Cline's string-encoded copy of a tool's input: strings as they are, anything else as JSON."""
    items = args.items() if isinstance(args, dict) else ()
    return {k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":")) for k, v in items}


def hook_input(payload: Mapping[str, Any], point: str, event: str, session: str, project: str) -> dict[str, Any]:
    """Cline's hook input for a hookd call on ``point``, for a hook file named ``event``."""
    event = event or POINT_EVENTS.get(point, "")
    kept = payload.get(HOOK_INPUT)
    data: dict[str, Any] = {}
    for key, value in (kept if isinstance(kept, dict) else {}).items():
        if key not in ("hook_event_name", "cwd"):
            data[_CLINE_NAMES.get(key) or camel(key)] = value
    data.setdefault("taskId", session)
    data.setdefault("workspaceRoots", [project] if project else [])
    data.setdefault("hookName", HOOK_NAMES.get(event, ""))
    data.update({k: v for k, v in payload.items() if k not in _NOT_INPUT})
    name, args = vocabulary.agent_input(payload)
    if name is not None:
        own = args  # in Cline's own keys: an earlier hook's rewrite of the script is one of `commands`
        call: dict[str, Any] = {"id": payload.get("toolCallId", ""), "name": name, "input": own}
        if event == "PostToolUse":
            call["output"] = payload.get("output")
            if payload.get("toolError") is not None:
                call["error"] = payload["toolError"]
            output = payload.get("output")
            data["tool_result"] = call
            data["postToolUse"] = {
                "toolName": name,
                "parameters": parameters(own),
                "result": output if isinstance(output, str) else json.dumps(output),
                "success": payload.get("toolError") is None,
            }
        else:
            data["tool_call"] = call
            data["preToolUse"] = {"toolName": name, "parameters": parameters(own)}
    return data


def read(stdout: str) -> dict[str, Any] | None:
    """The hook's control output, as Cline reads it; None when there is none or it is not an object."""
    text = stdout.strip()
    if not text:
        return None
    controls = [line.strip()[len("HOOK_CONTROL\t") :] for line in text.split("\n") if line.strip().startswith("HOOK_CONTROL\t")]
    try:
        value = json.loads(controls[-1] if controls else text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def answer(event: str, stdout: str, tool_name: str | None) -> dict[str, Any] | None:
    """Seed 000's HookDecision (as JSON data) for a Cline hook's output; None abstains."""
    obj = read(stdout)
    if obj is None:
        return None
    out: dict[str, Any] = {}
    message = obj.get("errorMessage") if isinstance(obj.get("errorMessage"), str) and obj["errorMessage"].strip() else None
    context = obj.get("context") if isinstance(obj.get("context"), str) else obj.get("contextModification")
    context = context if isinstance(context, str) and context else None
    if obj.get("cancel") is True and event in ("PreToolUse", "PostToolUse"):
        out.update(decision="deny", reason=message or context or f"cancelled by a Cline {event} hook")
    else:
        context = context or message
        if event == "PreToolUse" and isinstance(obj.get("overrideInput"), dict):
            out["modifiedInput"] = dict(obj["overrideInput"])  # the chain adds the shell tool's `command` again
    if context:
        out["injection"] = context
    return out or None


def _cwd(data: Mapping[str, Any]) -> str | None:
    """The workspace, where Cline starts its hook files."""
    roots = data.get("workspaceRoots")
    cwd = roots[0] if isinstance(roots, list) and roots else None
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None


def _answer(event: str, _code: int, stdout: str, _stderr: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
    name = payload.get("agentToolName")
    return answer(event, stdout, name if isinstance(name, str) else None)


# `hookd bridge run-hook cline --event EVENT -- CMD...`: a Cline hook file, run by hookd/agents/adapter.py in the
# workspace.
FORMAT = hook_format.per_event(
    "cline",
    "Run a hook file written for Cline under hookd: hookd's payload becomes Cline's hook input on CMD's "
    "stdin, and CMD's control output becomes a hookd decision.",
    "the Cline hook the file was written as (default: the point's)",
    hook_input,
    POINT_EVENTS,
    _cwd,
    _answer,
)
