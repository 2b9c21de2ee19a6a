"""Claude Code's hook protocol mapped onto hookd points, as pure functions.

``route`` turns one hook input (the JSON Claude Code writes on a command
hook's stdin) into the hookd call to make; ``render`` turns the chain's answer
into the JSON Claude Code reads back. No I/O here, so the whole mapping is
testable without an agent or a daemon. The formats follow Claude Code's hooks
reference; docs/bridges.md has the table and the citations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

AGENT = "claude-code"
UNMAPPED_PREFIX = "custom.claude."

# Claude Code event -> (hookd point, whether the bridge asks for a decision).
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
}
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"})

# Fields every event carries; they stay in ``hookInput`` rather than the payload.
COMMON_FIELDS = frozenset({"session_id", "transcript_path", "cwd", "permission_mode", "hook_event_name", "prompt_id", "effort"})
RENAMED = {"tool_name": "toolName", "tool_input": "args", "tool_response": "output"}
_UNRENAMED = {v: k for k, v in RENAMED.items()}
HOOK_INPUT = "hookInput"


class BadInput(ValueError):
    """The agent's stdin is not a hook input object."""


# NamedTuple rather than dataclass: dataclasses imports inspect, a few ms of every agent event.
class Call(NamedTuple):
    """What the bridge asks the daemon for one hook event."""

    event: str
    point: str
    decide: bool
    payload: dict[str, Any]
    session: str | None
    project: str | None
    attach: bool = False
    dispose: bool = False


class Verdict(NamedTuple):
    """The part of a hookd Outcome that Claude Code can act on."""

    decision: str | None = None
    reason: str | None = None
    injection: str | None = None
    modified_input: dict[str, Any] | None = None
    modified_output: Any = None
    decided_by: str | None = None
    errors: tuple[str, ...] = ()
    not_run: tuple[str, ...] = ()  # one line per configured guard that did not run, for the user


def camel(name: str) -> str:
    """snake_case -> camelCase (without `re`: every import counts on this path)."""
    renamed = RENAMED.get(name)
    if renamed:
        return renamed
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """camelCase -> snake_case, the inverse of ``camel`` for Claude Code's field names."""
    renamed = _UNRENAMED.get(name)
    if renamed:
        return renamed
    return "".join("_" + c.lower() if "A" <= c <= "Z" else c for c in name)


def payload_of(hook_input: Mapping[str, Any]) -> dict[str, Any]:
    """hookd's payload: the event's own fields in hookd's camelCase, and under ``hookInput`` the rest.

    Each field travels once: a large Write's content must fit the daemon's frame limit, not twice
    over. ``hookInput`` holds the common fields, and any field whose name would not come back
    unchanged from camelCase, so that ``claude_hooks.hook_input`` rebuilds the agent's input exactly.
    """
    payload: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    for key, value in hook_input.items():
        name = camel(key)
        if key in COMMON_FIELDS or name == HOOK_INPUT or name in payload or snake(name) != key:
            kept[key] = value
        else:
            payload[name] = value
    payload[HOOK_INPUT] = kept
    return payload


def route(hook_input: Any, environ: Mapping[str, str]) -> Call:
    """The hookd call for one hook input. Raises BadInput."""
    if not isinstance(hook_input, dict):
        raise BadInput(f"hook input must be a JSON object, got {type(hook_input).__name__}")
    event = hook_input.get("hook_event_name")
    if not isinstance(event, str) or not event:
        raise BadInput("hook input has no hook_event_name")
    session = hook_input.get("session_id")
    session = session if isinstance(session, str) and session else None
    # CLAUDE_PROJECT_DIR stays at the project root while cwd follows `cd` and worktrees.
    project = environ.get("CLAUDE_PROJECT_DIR") or hook_input.get("cwd")
    project = project if isinstance(project, str) and project.startswith("/") else None
    point, decide = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    has_session = session is not None
    return Call(
        event,
        point,
        decide,
        payload_of(hook_input),
        session,
        project,
        attach=event == "SessionStart" and has_session,
        dispose=event == SESSION_END and has_session,
    )


def _why(verdict: Verdict, what: str) -> str:
    if verdict.reason:
        return verdict.reason
    by = f" {verdict.decided_by!r}" if verdict.decided_by else ""
    return f"{what} by hookd hook{by}"


def _specific(event: str, **fields: Any) -> dict[str, Any] | None:
    present = {k: v for k, v in fields.items() if v is not None}
    return {"hookEventName": event, **present} if present else None


def render(event: str, verdict: Verdict | None) -> dict[str, Any] | None:
    """Claude Code's output JSON for ``verdict``; None when there is nothing to say (exit 0, no stdout)."""
    if verdict is None:
        return None
    v = verdict
    out: dict[str, Any] = {}
    specific: dict[str, Any] | None = None
    if event == "PreToolUse":
        final = v.decision if v.decision in ("allow", "deny", "ask") else None
        reason = _why(v, "denied") if final == "deny" else v.reason if final else None
        specific = _specific(
            event,
            permissionDecision=final,
            permissionDecisionReason=reason,
            updatedInput=v.modified_input,
            additionalContext=v.injection,
        )
    elif event == "PermissionRequest":
        if v.decision == "allow":
            allow: dict[str, Any] = {"behavior": "allow"}
            if v.modified_input is not None:
                allow["updatedInput"] = v.modified_input
            specific = {"hookEventName": event, "decision": allow}
        elif v.decision == "deny":
            specific = {"hookEventName": event, "decision": {"behavior": "deny", "message": _why(v, "denied")}}
    elif event in ("PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"):
        if v.decision == "deny":
            out["decision"] = "block"
            out["reason"] = _why(v, "blocked")
        if event == "PostToolUse":
            specific = _specific(event, additionalContext=v.injection, updatedToolOutput=v.modified_output)
        elif event != "PreCompact":
            specific = _specific(event, additionalContext=v.injection)
    elif event in ("SessionStart", "SubagentStart"):
        specific = _specific(event, additionalContext=v.injection)
        if event == "SubagentStart" and v.decision == "deny":
            # Claude Code cannot stop a subagent from starting; tell the user rather than drop it.
            out["systemMessage"] = f"hookd: {_why(v, 'denied')} (Claude Code cannot block SubagentStart)"
    if specific is not None:
        out["hookSpecificOutput"] = specific
    if v.not_run:
        # Shown to the user: a guard that did not run must never pass for one that allowed.
        notice = "\n".join(v.not_run)
        out["systemMessage"] = f"{out['systemMessage']}\n{notice}" if "systemMessage" in out else notice
    return out or None


def fail_closed(event: str, why: str) -> dict[str, Any] | None:
    """The answer under --fail-closed when hookd cannot be asked: deny tool calls, leave the rest alone."""
    if event != "PreToolUse":
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": why}}
