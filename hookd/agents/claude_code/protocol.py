"""Claude Code's hook protocol: its table in hookd's agent dialect (hookd/agents/dialect.py).

``dialect.route(DIALECT, ...)`` turns one hook input (the JSON Claude Code writes on a command hook's stdin,
or posts to an HTTP hook) into the hookd call to make; ``dialect.render(DIALECT, ...)`` turns the chain's
answer into the JSON Claude Code reads back: every field Claude Code reads, with the hooks that failed and
the guards that did not run named in ``systemMessage``; ``dialect.exit_status`` blocks TeammateIdle and
TaskCompleted by exit code 2. No I/O here, so the whole mapping is testable without an agent or a daemon. The formats
follow Claude Code's hooks reference; docs/bridges.md has the table and the citations.
"""

from __future__ import annotations

from typing import Any

from hookd.agents import dialect
from hookd.agents.dialect import Decided, Verdict, specific, why, with_agent_specific

AGENT = "claude-code"
UNMAPPED_PREFIX = "custom.claude."

# Claude Code event -> (hookd point, whether the bridge asks for a decision). Every event of the
# hooks reference is here, so every hook imported from Claude Code has a point to run on. Events
# with no point of their own in hookd's catalog go to ``custom.claude.<Event>`` (custom points take
# both kinds): a decision there when Claude Code lets a hook decide or add context on that event,
# an emit when its hooks only have side effects.
# A decision on a point the catalog lists as an observer point is refused by
# the daemon (wrong_kind); the bridge then emits instead, so these rows start
# deciding by themselves the day the catalog lets them (see docs/bridges.md).
ROUTES: dict[str, tuple[str, bool]] = {
    "PreToolUse": ("tool.approval.pre", True),
    "PostToolUse": ("tool.execute.after", True),
    "PostToolUseFailure": ("tool.execute.error", False),
    "PermissionRequest": ("permission.ask", True),
    "UserPromptSubmit": ("chat.message", True),
    "Stop": ("agent.turn.stop", True),
    "SubagentStart": ("agent.subagent.spawn.before", True),
    "SubagentStop": ("agent.subagent.complete", True),
    "SessionStart": ("agent.turn.start", True),
    "PreCompact": ("experimental.session.compacting", True),
    "Notification": ("custom.claude.Notification", False),
    "SessionEnd": ("chat.finished", False),
    **{
        event: (UNMAPPED_PREFIX + event, True)
        for event in (
            "UserPromptExpansion",
            "PostToolBatch",
            "PermissionDenied",
            "TaskCreated",
            "TaskCompleted",
            "TeammateIdle",
            "ConfigChange",
            "PreModelSwitch",
            "PostModelSwitch",
            "Elicitation",
            "ElicitationResult",
            "MessageDisplay",
            "Setup",
        )
    },
    **{
        event: (UNMAPPED_PREFIX + event, False)
        for event in (
            "PostCompact",
            "StopFailure",
            "InstructionsLoaded",
            "CwdChanged",
            "DirectoryAdded",
            "FileChanged",
            "WorktreeCreate",
            "WorktreeRemove",
        )
    },
}
SESSION_END = "SessionEnd"
INSTALLED_EVENTS: tuple[str, ...] = tuple(ROUTES)
# Which input field each event's settings `matcher` filters on (Claude Code's hooks reference, "Matcher patterns").
MATCHER_FIELDS = {
    **dict.fromkeys(("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"), "tool_name"),
    "SessionStart": "source",
    "SessionEnd": "reason",
    "Notification": "notification_type",
    "SubagentStart": "agent_type",
    "SubagentStop": "agent_type",
    "PreCompact": "trigger",
    "PostCompact": "trigger",
    "ConfigChange": "source",
    "StopFailure": "error",
    "InstructionsLoaded": "load_reason",
    "Setup": "trigger",
    "Elicitation": "mcp_server_name",
    "ElicitationResult": "mcp_server_name",
}
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"})

# Fields every event carries; they stay in ``hookInput`` rather than the payload.
COMMON_FIELDS = frozenset({"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "prompt_id", "effort"})


# Events whose answer is a top-level `decision: "block"` + `reason`.
TOP_LEVEL_BLOCK = frozenset(
    {
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "SubagentStop",
        "PreCompact",
        "PostToolBatch",
        "ConfigChange",
        "TaskCreated",
    }
)
# Events that take hookSpecificOutput.additionalContext.
CONTEXT_EVENTS = frozenset(
    {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "SubagentStop",
        "SessionStart",
        "SubagentStart",
        "Setup",
        "PostModelSwitch",
    }
)
# Events Claude Code lets block only through exit code 2 (JSON has no field for it).
EXIT_2_ONLY = frozenset({"TeammateIdle", "TaskCompleted"})


def decision_fields(event: str, v: Verdict, agent: dict[str, Any], tool_name: str | None = None) -> Decided:
    """The event's decision in Claude Code's words."""
    top: dict[str, Any] = {}
    notes: list[str] = []
    fields: dict[str, Any] | None = None
    context = v.injection if event in CONTEXT_EVENTS else None
    if event in ("PreToolUse", "PreModelSwitch"):
        final = v.decision if v.decision in ("allow", "deny", "ask") else None
        if final == "ask" and agent.get("defer") is True and event == "PreToolUse":
            final = "defer"
        reason = why(v, "denied") if final == "deny" else v.reason if final else None
        updated = v.modified_input if event == "PreToolUse" else None
        fields = specific(event, permissionDecision=final, permissionDecisionReason=reason, updatedInput=updated, additionalContext=context)
    elif event == "PermissionRequest":
        if v.decision == "allow":
            allow: dict[str, Any] = {"behavior": "allow"}
            if v.modified_input is not None:
                allow["updatedInput"] = v.modified_input
            if isinstance(agent.get("updatedPermissions"), list):
                allow["updatedPermissions"] = agent["updatedPermissions"]
            fields = {"hookEventName": event, "decision": allow}
        elif v.decision == "deny":
            deny: dict[str, Any] = {"behavior": "deny", "message": why(v, "denied")}
            if agent.get("interrupt") is True:
                deny["interrupt"] = True
            fields = {"hookEventName": event, "decision": deny}
    elif event == "PermissionDenied":
        fields = specific(event, retry=True if agent.get("retry") is True else None)
    elif event in TOP_LEVEL_BLOCK:
        if v.decision == "deny":
            top["decision"] = "block"
            top["reason"] = why(v, "blocked")
        output = v.modified_output if event == "PostToolUse" else None
        fields = specific(event, additionalContext=context, updatedToolOutput=output)
    elif event in CONTEXT_EVENTS:
        fields = specific(event, additionalContext=context)
        if event == "SubagentStart" and v.decision == "deny":
            # Claude Code cannot stop a subagent from starting; tell the user rather than drop it.
            notes.append(f"hookd: {why(v, 'denied')} (Claude Code cannot block SubagentStart)")
    return Decided(with_agent_specific(event, fields, agent), top, notes)


UNIVERSAL = ("continue", "stopReason", "suppressOutput", "terminalSequence")  # agentOutput fields every event takes

DIALECT = dialect.Dialect(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    common_fields=COMMON_FIELDS,
    decision_fields=decision_fields,
    project_env="CLAUDE_PROJECT_DIR",
    session_end=SESSION_END,
    remember_env=True,
    flow=lambda event, agent, out: dialect.pass_flow(event, agent, out, UNIVERSAL),
    exit2_only=EXIT_2_ONLY,
    session_end_timeout=dialect.SESSION_END_TIMEOUT,
)
