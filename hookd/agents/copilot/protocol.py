"""GitHub Copilot CLI's hook protocol: its table in hookd's agent dialect (hookd/agents/dialect.py).

Copilot CLI (`@github/copilot`) runs command hooks from JSON files (`~/.copilot/hooks/*.json`, a
repository's `.github/hooks/*.json` once the folder is trusted, inline `hooks` in settings.json). A hook
gets one JSON object on stdin in Copilot's own camelCase (`sessionId`, `toolName`, `toolArgs`,
`toolResult`, no event name: the hook file names the event) and answers with top-level fields:
`permissionDecision` / `permissionDecisionReason` / `modifiedArgs` on preToolUse, `behavior` / `message`
on permissionRequest, `decision: "block"` with `reason` on userPromptSubmitted, agentStop and
subagentStop, `modifiedResult` on postToolUse, `additionalContext` where it is read. The shim posts each
event to the endpoint's ``/copilot/EVENT``, so the event's name comes from the URL. Observed with the
real CLI (1.0.102): a denied preToolUse reaches the model as ``Denied by preToolUse hook: REASON``; an
``ask`` in a run with no one to ask is a deny; a hook that times out or exits other than 2 lets the
tool run. docs/bridges.md has the table.
"""

from __future__ import annotations

import json
from typing import Any

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc
from hookd.agents.dialect import Decided, Verdict

AGENT = "copilot"
UNMAPPED_PREFIX = "custom.copilot."

# Copilot event -> the Claude Code event it is (its point, and whether Copilot reads a decision from the hook), or
# whether its custom point decides.
ROUTES = dialect.routes_like(
    cc.DIALECT,
    UNMAPPED_PREFIX,
    {
        "preToolUse": "PreToolUse",
        "permissionRequest": "PermissionRequest",
        "postToolUse": "PostToolUse",
        "postToolUseFailure": "PostToolUseFailure",
        "userPromptSubmitted": "UserPromptSubmit",
        "agentStop": "Stop",
        "subagentStart": "SubagentStart",
        "subagentStop": "SubagentStop",
        "sessionStart": "SessionStart",
        "sessionEnd": "SessionEnd",
        "errorOccurred": False,
        "notification": "Notification",
    },
)
SESSION_START = "sessionStart"
SESSION_END = "sessionEnd"
INSTALLED_EVENTS: tuple[str, ...] = tuple(ROUTES)
TOOL_EVENT = "preToolUse"
# Events blocked by a top-level `decision: "block"` with `reason`.
TOP_LEVEL_BLOCK = frozenset({"userPromptSubmitted", "agentStop", "subagentStop"})
# Events that read `additionalContext`.
CONTEXT_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure", "userPromptSubmitted", "sessionStart", "subagentStart"})
# Fields every event carries: kept under hookInput (in route's names), not in the payload.
COMMON_FIELDS = frozenset(
    {"session_id", "cwd", "hook_event_name", "timestamp", "transcript_path", "hook_name", "traceparent", "tracestate"}
)
# Copilot's names for the fields route reads; every other field is put in snake_case, so that the payload
# (camelCase again) carries it under Copilot's own name.
INPUT_NAMES = {
    "sessionId": "session_id",
    "toolName": "tool_name",
    "toolArgs": "tool_input",
    "toolInput": "tool_input",  # permissionRequest's name for the same arguments
    "toolResult": "tool_response",
    "transcriptPath": "transcript_path",
}


def normalise(hook_input: dict[str, Any]) -> dict[str, Any]:
    """Copilot's hook input in the names route reads. ``toolArgs`` that arrive as a JSON string (as older
    versions sent them) become the object they hold."""
    out: dict[str, Any] = {}
    for key, value in hook_input.items():
        if not isinstance(key, str):
            continue
        name = INPUT_NAMES.get(key) or dialect.snake(key)
        if name == "tool_input" and isinstance(value, str):
            try:
                decoded = json.loads(value)
            except ValueError:
                decoded = None
            value = decoded if isinstance(decoded, dict) else value
        out.setdefault(name, value)
    return out


def _result(output: Any) -> dict[str, Any]:
    """A rewrite of a tool's output as Copilot's ToolResultObject: an object as it is, anything else as the text the model gets."""
    if isinstance(output, dict) and isinstance(output.get("textResultForLlm"), str):
        return {"resultType": "success", **output}
    text = output if isinstance(output, str) else json.dumps(output)
    return {"resultType": "success", "textResultForLlm": text}


def decision_fields(event: str, v: Verdict, agent: dict[str, Any], tool_name: str | None = None) -> Decided:
    """The event's decision in Copilot's words: every field at the top level."""
    top: dict[str, Any] = {}
    notes: list[str] = []
    if event == "preToolUse":
        if v.decision in ("allow", "deny", "ask"):
            top["permissionDecision"] = v.decision
            reason = dialect.why(v, "denied") if v.decision == "deny" else v.reason
            if reason:
                top["permissionDecisionReason"] = reason
        if v.modified_input is not None and v.decision != "deny":
            top["modifiedArgs"] = v.modified_input
    elif event == "permissionRequest":
        if v.decision == "allow":
            top["behavior"] = "allow"
        elif v.decision == "deny":
            top.update(behavior="deny", message=dialect.why(v, "denied"))
    elif event in TOP_LEVEL_BLOCK:
        if v.decision == "deny":
            top.update(decision="block", reason=dialect.why(v, "blocked"))
    elif v.decision == "deny":
        # postToolUse (the tool has run), sessionStart, subagentStart: Copilot reads no decision there.
        notes.append(f"hookd: {dialect.why(v, 'denied')} (Copilot CLI cannot block {event})")
    if event == "postToolUse" and v.modified_output is not None:
        top["modifiedResult"] = _result(v.modified_output)
    if event in CONTEXT_EVENTS and v.injection:
        top["additionalContext"] = v.injection
    return Decided(None, top, notes)


def flow(event: str, agent: dict[str, Any], out: dict[str, Any]) -> None:
    """Copilot reads `suppressOutput` (true) on most events; it has no `continue` or `stopReason`."""
    if agent.get("suppressOutput") is True:
        out["suppressOutput"] = True


DIALECT = dialect.Dialect(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    common_fields=COMMON_FIELDS,
    decision_fields=decision_fields,
    session_start=SESSION_START,
    session_end=SESSION_END,
    flow=flow,
    normalise=normalise,
    fail_closed_event=TOOL_EVENT,
)
