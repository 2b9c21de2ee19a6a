"""Gemini CLI's hook contract, from the hook's side: what a hook written for Gemini CLI is given and
what its answer means, as pure functions (hookd/agents/adapter.py does the process work).

Read from Gemini CLI's hooks reference and its hook runner (packages/core/src/hooks/hookRunner.ts):
the text read is stdout, or stderr when stdout is empty; a JSON object there (or a JSON string holding
one) is the answer whatever the exit code; other text is ``allow`` + ``systemMessage`` on exit 0,
the same prefixed ``Warning:`` on exit 1, and ``deny`` with the text as reason on any other code.
Gemini CLI combines a BeforeTool's hooks so that any deny wins and ``allow`` is what nobody objecting
means: an ``allow`` here abstains, so it never ends hookd's chain before the guards after it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from hookd.agents import hook_format
from hookd.agents.claude_code import hooks as claude_hooks
from hookd.agents.gemini.protocol import BLOCKING, ROUTES

POINT_EVENTS = {point: event for event, (point, _) in ROUTES.items()}
UNIVERSAL = ("continue", "stopReason", "suppressOutput", "systemMessage")
# hookSpecificOutput fields with a HookDecision equivalent; the others travel in agentOutput.specific.
_MAPPED_SPECIFIC = frozenset({"hookEventName", "tool_input", "additionalContext"})


def hook_input(payload: Mapping[str, Any], point: str, event: str, session: str, project: str, cwd: str) -> dict[str, Any]:
    """Gemini CLI's hook input for a hookd call on ``point``, for a hook configured on ``event``.

    The fields come back as the bridge sent them (the chain's current ``args`` included, so an earlier
    hook's rewrite is seen); a call from another agent gets Gemini CLI's event name and common fields."""
    data = claude_hooks.hook_input(payload, point, session, project, cwd)
    data["hook_event_name"] = event or POINT_EVENTS.get(point) or data.get("hook_event_name", "")
    data.setdefault("transcript_path", "")
    return data


def read(code: int, stdout: str, stderr: str) -> dict[str, Any] | None:
    """The hook's output object as Gemini CLI reads it; None when it printed nothing."""
    text = stdout.strip() or stderr.strip()
    if not text:
        return None
    try:
        value = json.loads(text)
        if isinstance(value, str):
            value = json.loads(value)
        if isinstance(value, dict):
            return value
    except ValueError:
        pass
    if code == 0:
        return {"decision": "allow", "systemMessage": text}
    if code == 1:
        return {"decision": "allow", "systemMessage": f"Warning: {text}"}
    return {"decision": "deny", "reason": text}


def answer(event: str, code: int, stdout: str, stderr: str, args: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """Seed 000's HookDecision (as JSON data) for a Gemini CLI hook's result; None abstains.

    ``args``: the tool's current arguments, which a BeforeTool ``tool_input`` is merged over."""
    obj = read(code, stdout, stderr)
    if obj is None:
        return None
    out: dict[str, Any] = {}
    decision = obj.get("decision")
    if decision in ("deny", "block") and event in BLOCKING:  # elsewhere Gemini CLI ignores it
        out["decision"] = "deny"
        why = obj.get("stopReason") or obj.get("reason")
        out["reason"] = why if isinstance(why, str) and why else "No reason provided"
    elif decision == "ask" and event == "BeforeTool":
        out["decision"] = "ask"
        if isinstance(obj.get("reason"), str) and obj["reason"]:
            out["reason"] = obj["reason"]
    specific = obj.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if event == "BeforeTool" and isinstance(specific.get("tool_input"), dict):
        out["modifiedInput"] = {**(args or {}), **specific["tool_input"]}
    context = specific.get("additionalContext")
    if isinstance(context, str) and context:
        out["injection"] = context
    agent = claude_hooks.agent_output(obj, specific, UNIVERSAL, _MAPPED_SPECIFIC)
    if agent:
        out["agentOutput"] = agent
    return out or None


def environment(base: Mapping[str, str], payload: Mapping[str, Any], data: Mapping[str, Any]) -> dict[str, str]:
    """What Gemini CLI gives a hook: the agent's environment (as forwarded), GEMINI_PROJECT_DIR and
    GEMINI_CWD (the input's cwd), GEMINI_SESSION_ID, and CLAUDE_PROJECT_DIR for compatibility."""
    env = hook_format.forwarded_environment(base, payload)
    cwd = str(data.get("cwd") or "")
    env.update(GEMINI_PROJECT_DIR=cwd, GEMINI_CWD=cwd, GEMINI_SESSION_ID=str(data.get("session_id") or ""), CLAUDE_PROJECT_DIR=cwd)
    return env


def _input_for(payload: Mapping[str, Any], event: str | None, environ: Mapping[str, str], cwd: str) -> dict[str, Any]:
    point, session, project = hook_format.context(environ)
    return hook_input(payload, point, event or "", session, project, cwd)


def _cwd(data: Mapping[str, Any]) -> str | None:
    cwd = data.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None


def _answer(event: str, code: int, stdout: str, stderr: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
    args = payload.get("args")
    return answer(event, code, stdout, stderr, args if isinstance(args, dict) else None)


# `hookd bridge run-hook gemini`: a hook written for Gemini CLI, run by hookd/agents/adapter.py.
FORMAT = hook_format.HookFormat(
    prog="hookd bridge run-hook gemini",
    description="Run a hook written for Gemini CLI under hookd: hookd's payload becomes Gemini CLI's hook input "
    "on CMD's stdin, and CMD's output JSON, text or exit code becomes a hookd decision.",
    option="--event",
    option_help="the Gemini CLI event the hook was configured for (default: the point's)",
    hook_input=_input_for,
    environment=environment,
    selected=lambda _event, _name, _data: True,
    argv=lambda cmd, _env: cmd,
    cwd=_cwd,
    answer=_answer,
)
