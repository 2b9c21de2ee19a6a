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

from hookd.core import vocabulary

AGENT = "claude-code"
UNMAPPED_PREFIX = "custom.claude."
# The payload field holding the environment the agent gave its hook (the bridge forwards it), so a
# hook imported from Claude Code runs with the agent's PATH, CLAUDE_ENV_FILE and settings `env`.
AGENT_ENV = "agentEnv"
ENV_MEMORY = 256  # sessions whose last forwarded environment is kept for calls that carry none

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
RENAMED = {"tool_name": "toolName", "tool_input": "args", "tool_response": "output"}
_UNRENAMED = {v: k for k, v in RENAMED.items()}
HOOK_INPUT = "hookInput"
# Payload keys hookd sets itself: an agent field of the same name stays in ``hookInput``.
_RESERVED = frozenset({HOOK_INPUT, AGENT_ENV, vocabulary.AGENT_KEY, vocabulary.AGENT_TOOL_KEY})


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
    agent_output: dict[str, Any] | None = None  # the outcome's agentOutput: fields only the agent knows


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
        if key in COMMON_FIELDS or name in _RESERVED or name in payload or snake(name) != key:
            kept[key] = value
        else:
            payload[name] = value
    payload[HOOK_INPUT] = kept
    return payload


_envs: dict[str, dict[str, str]] = {}


def _agent_env(session: str | None, environ: Mapping[str, str]) -> dict[str, str] | None:
    """The agent's environment for this call: what was forwarded with it over what was forwarded
    before for its session (the shim forwards all of it at SessionStart; an HTTP hook only the few
    variables its settings allow), else None (hooks then run with hookd's)."""
    if environ:
        env = {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)}
        if session is not None:
            env = {**_envs.pop(session, {}), **env}
            _envs[session] = env
            while len(_envs) > ENV_MEMORY:
                del _envs[next(iter(_envs))]
        return env
    return _envs.get(session) if session is not None else None


def agent_env(session: str | None) -> dict[str, str] | None:
    """The agent's environment last forwarded for ``session`` in this process (the daemon, for HTTP hooks)."""
    return _envs.get(session) if session is not None else None


def route(hook_input: Any, environ: Mapping[str, str], carry_env: bool = True, agent: str = AGENT) -> Call:
    """The hookd call for one hook input. Raises BadInput.

    A tool call's name and arguments are put into hookd's one vocabulary (hookd/core/vocabulary.py) and
    the payload names ``agent``: Claude Code, or an agent that speaks its hook format (Qwen Code).

    ``environ`` is the environment the agent started its hook with, as the bridge received it
    (all of it: Claude Code gives a hook its own environment plus CLAUDE_PROJECT_DIR, and
    CLAUDE_ENV_FILE on SessionStart, CLAUDE_PLUGIN_ROOT for a plugin's hooks); it travels in the
    payload under ``agentEnv``. Empty when the call carries none (an HTTP hook): the last
    environment forwarded for the same session stands in."""
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
    payload = vocabulary.canonical(payload_of(hook_input), agent)
    env = _agent_env(session, environ)
    if env is not None and (carry_env or session is None):
        payload[AGENT_ENV] = env
    if event == SESSION_END and session is not None:
        _envs.pop(session, None)
    return Call(
        event,
        point,
        decide,
        payload,
        session,
        project,
        attach=event == "SessionStart" and has_session,
        dispose=event == SESSION_END and has_session,
    )


def for_agent(call: Call, verdict: Verdict | None) -> Verdict | None:
    """``verdict`` with its rewrite in the agent's own argument names: guards rewrite hookd's
    (``args.path``), the agent reads its own (``file_path``)."""
    if verdict is None or verdict.modified_input is None:
        return verdict
    agent = call.payload.get(vocabulary.AGENT_KEY)
    name = call.payload.get(vocabulary.AGENT_TOOL_KEY)
    if not isinstance(agent, str) or not isinstance(name, str):
        return verdict
    sent = call.payload.get(vocabulary.ARGS_KEY)
    return verdict._replace(modified_input=vocabulary.agent_args(agent, name, verdict.modified_input, sent))


def why(verdict: Verdict, what: str) -> str:
    """The reason a deny gives the agent: the hook's own, else which hook and what it did (never empty)."""
    if verdict.reason:
        return verdict.reason
    by = f" {verdict.decided_by!r}" if verdict.decided_by else ""
    return f"{what} by hookd hook{by}"


def _specific(event: str, **fields: Any) -> dict[str, Any] | None:
    present = {k: v for k, v in fields.items() if v is not None}
    return {"hookEventName": event, **present} if present else None


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
_UNIVERSAL = ("continue", "stopReason", "suppressOutput", "terminalSequence")


def verdict(outcome: Any, not_run_line: Any = None) -> Verdict:
    """The Verdict of a hookd Outcome; ``not_run_line(name, reason, message)`` words a guard that did not run."""
    by = outcome.decided_by.name if outcome.decided_by is not None else None
    errors = tuple(f"{e.hook.name}: {e.code}: {e.message}" for e in outcome.errors)
    line = not_run_line or (lambda name, reason, message: f"hookd: guard {name!r} did not run: {reason} ({message})")
    skipped = tuple(line(n.hook.name, n.reason, n.message) for n in getattr(outcome, "not_run", ()))
    return Verdict(
        outcome.decision,
        outcome.reason,
        outcome.injection,
        outcome.modified_input,
        outcome.modified_output,
        by,
        errors,
        skipped,
        getattr(outcome, "agent_output", None),
    )


def _specific_for(event: str, v: Verdict, agent: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(hookSpecificOutput, top-level fields) for the event's decision fields."""
    top: dict[str, Any] = {}
    specific: dict[str, Any] | None = None
    context = v.injection if event in CONTEXT_EVENTS else None
    if event in ("PreToolUse", "PreModelSwitch"):
        final = v.decision if v.decision in ("allow", "deny", "ask") else None
        if final == "ask" and agent.get("defer") is True and event == "PreToolUse":
            final = "defer"
        reason = why(v, "denied") if final == "deny" else v.reason if final else None
        updated = v.modified_input if event == "PreToolUse" else None
        specific = _specific(
            event, permissionDecision=final, permissionDecisionReason=reason, updatedInput=updated, additionalContext=context
        )
    elif event == "PermissionRequest":
        if v.decision == "allow":
            allow: dict[str, Any] = {"behavior": "allow"}
            if v.modified_input is not None:
                allow["updatedInput"] = v.modified_input
            if isinstance(agent.get("updatedPermissions"), list):
                allow["updatedPermissions"] = agent["updatedPermissions"]
            specific = {"hookEventName": event, "decision": allow}
        elif v.decision == "deny":
            deny: dict[str, Any] = {"behavior": "deny", "message": why(v, "denied")}
            if agent.get("interrupt") is True:
                deny["interrupt"] = True
            specific = {"hookEventName": event, "decision": deny}
    elif event == "PermissionDenied":
        specific = _specific(event, retry=True if agent.get("retry") is True else None)
    elif event in TOP_LEVEL_BLOCK:
        if v.decision == "deny":
            top["decision"] = "block"
            top["reason"] = why(v, "blocked")
        output = v.modified_output if event == "PostToolUse" else None
        specific = _specific(event, additionalContext=context, updatedToolOutput=output)
    elif event in CONTEXT_EVENTS:
        specific = _specific(event, additionalContext=context)
        if event == "SubagentStart" and v.decision == "deny":
            # Claude Code cannot stop a subagent from starting; tell the user rather than drop it.
            top["systemMessage"] = f"hookd: {why(v, 'denied')} (Claude Code cannot block SubagentStart)"
    extra = agent.get("specific")
    if isinstance(extra, dict) and extra:
        specific = {**(specific or {"hookEventName": event}), **{k: x for k, x in extra.items() if k != "hookEventName"}}
    return specific, top


def render(event: str, verdict: Verdict | None) -> dict[str, Any] | None:
    """Claude Code's output JSON for ``verdict``; None when there is nothing to say (exit 0, no stdout).

    Every field Claude Code reads comes across: the decision in the event's own form, the context,
    the rewrites, and the agent fields hooks gave (``systemMessage``, ``continue: false`` with
    ``stopReason``, ``suppressOutput``, ``defer``, ``updatedPermissions``, ``interrupt``, ``retry``,
    other hookSpecificOutput fields). Hooks that failed, and guards that did not run, are named in
    ``systemMessage``, as Claude Code shows a hook error notice."""
    if verdict is None:
        return None
    v = verdict
    agent = v.agent_output if isinstance(v.agent_output, dict) else {}
    specific, out = _specific_for(event, v, agent)
    for key in _UNIVERSAL:
        if key in agent:
            out[key] = agent[key]
    if out.get("continue") is not False:
        out.pop("continue", None)
        out.pop("stopReason", None)
    messages = [m for m in (out.pop("systemMessage", None), agent.get("systemMessage")) if isinstance(m, str) and m]
    messages += [f"hookd: hook {e}" for e in v.errors]
    messages += list(v.not_run)
    if messages:
        # Shown to the user: a guard that did not run must never pass for one that allowed.
        out["systemMessage"] = "\n".join(messages)
    if specific is not None:
        out["hookSpecificOutput"] = specific
    return out or None


def exit_status(event: str, verdict: Verdict | None) -> tuple[int, str]:
    """(exit code, stderr) for the bridge's answer: 2 with the reason where Claude Code blocks an
    event only through exit code 2 (TeammateIdle, TaskCompleted); else 0 and nothing."""
    if verdict is not None and verdict.decision == "deny" and event in EXIT_2_ONLY:
        return 2, why(verdict, "blocked")
    return 0, ""


def fail_closed(event: str, why: str) -> dict[str, Any] | None:
    """The answer under --fail-closed when hookd cannot be asked: deny tool calls, leave the rest alone."""
    if event != "PreToolUse":
        return None
    return {"hookSpecificOutput": {"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": why}}
