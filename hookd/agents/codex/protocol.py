"""Codex's hook protocol mapped onto hookd points, as pure functions.

Codex (`@openai/codex`) copied Claude Code's command hooks with its own rules: the same JSON on stdin plus
`turn_id` and `model`, but a stricter answer. Every output object is parsed with unknown fields refused, and
some values Claude Code accepts are errors in Codex ("unsupported permissionDecision:allow" without
`updatedInput`, `ask` on PreToolUse, `continue`/`stopReason`/`suppressOutput` on PreToolUse and
PermissionRequest, `updatedInput` on PermissionRequest, a block without a non-empty reason). A hook answer
Codex rejects is a failed hook, and Codex proceeds, so the table's answer only ever writes what Codex accepts
for the event. Its calls carry Claude Code's payload (the fields every event carries under ``hookInput``), so
a hook written for either agent reads the same; Codex has no project variable: the project is the input's
``cwd``. docs/bridges.md has the table and the references.
"""

from __future__ import annotations

from typing import Any

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc
from hookd.agents.dialect import Decided, Verdict

AGENT = "codex"
UNMAPPED_PREFIX = "custom.codex."

# Codex's events: Claude Code's of the same name (their points, and whether the bridge asks for a decision),
# and Interrupt, told on a custom point.
EVENTS = (
    "PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop", "SessionStart",
    "SessionEnd", "PreCompact", "PostCompact",
)  # fmt: skip
ROUTES = dialect.routes_like(cc.DIALECT, UNMAPPED_PREFIX, {**{e: e for e in EVENTS}, "Interrupt": False})
SESSION_START = "SessionStart"
SESSION_END = "SessionEnd"
INSTALLED_EVENTS: tuple[str, ...] = tuple(ROUTES)
# Which input field each event's `matcher` filters: Claude Code's field, for the events Codex matches on (tools,
# the session start's source, compaction's trigger, the subagent's type; its SessionEnd, UserPromptSubmit and Stop
# ignore matchers).
MATCHER_FIELDS = {event: field for event, field in cc.MATCHER_FIELDS.items() if event in ROUTES and event != SESSION_END}
# Events whose answer may carry `hookSpecificOutput` (with `additionalContext`, and the event's decision).
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SubagentStart"})
# Events blocked by a top-level `decision: "block"` with a non-empty `reason`.
TOP_LEVEL_BLOCK = frozenset({"PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})
# Events where Codex refuses `continue`, `stopReason` and `suppressOutput`.
NO_FLOW_FIELDS = frozenset({"PreToolUse", "PermissionRequest"})
MCP_PREFIX = "mcp__"


def _why(v: Verdict, what: str) -> str:
    reason = (v.reason or "").strip()
    if reason:
        return reason
    by = f" {v.decided_by!r}" if v.decided_by else ""
    return f"{what} by hookd hook{by}"


def decision_fields(event: str, v: Verdict, agent: dict[str, Any], tool_name: str | None = None) -> Decided:
    """The event's decision in Codex's words: only what Codex accepts for the event.

    ``tool_name`` (the input's) tells an MCP tool, whose output Codex lets a PostToolUse hook replace."""
    out: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    notes: list[str] = []
    context = v.injection if event in CONTEXT_EVENTS and v.injection else None
    if event == "PreToolUse":
        if v.decision == "deny":
            fields.update(permissionDecision="deny", permissionDecisionReason=_why(v, "denied"))
        elif v.decision == "ask":
            # Codex's PreToolUse cannot ask (it is an error there); a guard that wants a person is not an allow.
            reason = _why(v, "approval asked")
            fields.update(
                permissionDecision="deny",
                permissionDecisionReason=f"{reason} (a hookd hook asked for approval, which a Codex PreToolUse hook cannot ask for)",
            )
        elif v.decision == "allow" and isinstance(v.modified_input, dict):
            # Codex takes a rewrite only with an allow, and refuses an allow without one.
            fields.update(permissionDecision="allow", updatedInput=v.modified_input)
    elif event == "PermissionRequest":
        if v.decision == "allow":
            fields["decision"] = {"behavior": "allow"}
        elif v.decision == "deny":
            fields["decision"] = {"behavior": "deny", "message": _why(v, "denied")}
    elif event in TOP_LEVEL_BLOCK and v.decision == "deny":
        out.update(decision="block", reason=_why(v, "blocked"))
    elif event == "PreCompact" and v.decision == "deny":
        # Codex's PreCompact reads no decision; `continue: false` stops the turn instead of compacting.
        out.update({"continue": False, "stopReason": _why(v, "compaction stopped")})
    elif event == "SubagentStart" and v.decision == "deny":
        notes.append(f"hookd: {_why(v, 'denied')} (Codex cannot block SubagentStart)")
    if event == "PostToolUse" and v.modified_output is not None:
        if (tool_name or "").startswith(MCP_PREFIX):
            fields["updatedMCPToolOutput"] = v.modified_output
        else:
            notes.append(
                f"hookd: Codex replaces only an MCP tool's output; the rewrite of {tool_name or 'the tool'}'s output was not applied"
            )
    if context:
        fields["additionalContext"] = context
    wrapped = {"hookEventName": event, **fields} if fields and (event in CONTEXT_EVENTS or event == "PermissionRequest") else None
    return Decided(wrapped, out, notes)


def flow(event: str, agent: dict[str, Any], out: dict[str, Any]) -> None:
    """What Codex takes of `continue`, `stopReason` and `suppressOutput`: never on the events that
    refuse them, `continue` only to stop, `suppressOutput` only true and not on PostToolUse."""
    if event in NO_FLOW_FIELDS:
        return
    if agent.get("continue") is False:
        out["continue"] = False
        if isinstance(agent.get("stopReason"), str):
            out["stopReason"] = agent["stopReason"]
    if agent.get("suppressOutput") is True and event != "PostToolUse":
        out["suppressOutput"] = True


DIALECT = dialect.Dialect(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    common_fields=cc.COMMON_FIELDS,
    decision_fields=decision_fields,
    session_start=SESSION_START,
    session_end=SESSION_END,
    flow=flow,
)
