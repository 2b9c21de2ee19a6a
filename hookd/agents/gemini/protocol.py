"""Gemini CLI's hook protocol mapped onto hookd points, as pure functions.

Gemini CLI copied Claude Code's command hooks (JSON on stdin, JSON on stdout, exit code 2 blocks)
with its own event names, a top-level ``decision``/``reason`` on every event, rewrites under
``hookSpecificOutput`` in snake_case (``tool_input``) and timeouts in milliseconds. ``route`` turns
one hook input into the hookd call, ``render`` the chain's answer into Gemini CLI's output; the
call, verdict and payload shapes are the Claude Code bridge's, so hooks see the same payload
(``toolName``, ``args``, ``hookInput``...) from either agent. docs/bridges.md has the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.agents.claude_code import protocol as cc
from hookd.core import vocabulary

AGENT = "gemini"
UNMAPPED_PREFIX = "custom.gemini."
BadInput = cc.BadInput
Call = cc.Call
Verdict = cc.Verdict

# Gemini CLI event -> (hookd point, whether the bridge asks for a decision). Every event of Gemini
# CLI's hooks reference (HookEventName in packages/core/src/hooks/types.ts) is here. A decision on an
# observer point of the catalog is refused by the daemon (wrong_kind); the bridge then emits.
ROUTES: dict[str, tuple[str, bool]] = {
    "BeforeTool": ("tool.approval.pre", True),
    "AfterTool": ("tool.execute.after", True),
    "BeforeAgent": ("chat.message", True),
    "AfterAgent": ("agent.turn.stop", True),
    "SessionStart": ("agent.turn.start", True),
    "SessionEnd": ("chat.finished", False),
    "PreCompress": ("experimental.session.compacting", True),
    "Notification": (UNMAPPED_PREFIX + "Notification", False),
    "BeforeModel": (UNMAPPED_PREFIX + "BeforeModel", True),
    "AfterModel": (UNMAPPED_PREFIX + "AfterModel", True),
    "BeforeToolSelection": (UNMAPPED_PREFIX + "BeforeToolSelection", True),
}
SESSION_END = "SessionEnd"
# AfterModel fires for every streamed chunk of every answer: a process per chunk is too dear to
# install by default. Its hooks still import (they run on custom.gemini.AfterModel).
NOT_INSTALLED = {"AfterModel": "Gemini CLI fires AfterModel for every streamed chunk"}
INSTALLED_EVENTS: tuple[str, ...] = tuple(e for e in ROUTES if e not in NOT_INSTALLED)
# Which input field each event's settings `matcher` filters (regular expression on tool names,
# exact string on the lifecycle triggers).
MATCHER_FIELDS = {
    **dict.fromkeys(("BeforeTool", "AfterTool"), "tool_name"),
    **{"SessionStart": "source", "SessionEnd": "reason", "PreCompress": "trigger"},
}
TOOL_EVENTS = frozenset({"BeforeTool", "AfterTool"})
# Events Gemini CLI lets a hook's `decision: deny` block (the reference's "Relevant output fields").
BLOCKING = frozenset({"BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel"})
# Events whose hookSpecificOutput.additionalContext Gemini CLI reads.
CONTEXT_EVENTS = frozenset({"AfterTool", "BeforeAgent", "SessionStart"})
COMMON_FIELDS = frozenset({"session_id", "transcript_path", "cwd", "hook_event_name", "timestamp"})
_UNIVERSAL = ("continue", "stopReason", "suppressOutput")


def payload_of(hook_input: Mapping[str, Any]) -> dict[str, Any]:
    """hookd's payload, as the Claude Code bridge builds it; Gemini CLI's ``timestamp`` stays in ``hookInput``."""
    payload = cc.payload_of({k: v for k, v in hook_input.items() if k != "timestamp"})
    if "timestamp" in hook_input:
        payload[cc.HOOK_INPUT]["timestamp"] = hook_input["timestamp"]
    return payload


def route(hook_input: Any, environ: Mapping[str, str]) -> Call:
    """The hookd call for one hook input. Raises BadInput.

    Gemini CLI starts a hook with its own environment plus GEMINI_PROJECT_DIR (= the input's cwd),
    GEMINI_SESSION_ID and CLAUDE_PROJECT_DIR; the environment travels under ``agentEnv`` as from
    Claude Code, so hooks imported from either agent run with the agent's PATH."""
    if not isinstance(hook_input, dict):
        raise BadInput(f"hook input must be a JSON object, got {type(hook_input).__name__}")
    event = hook_input.get("hook_event_name")
    if not isinstance(event, str) or not event:
        raise BadInput("hook input has no hook_event_name")
    session = hook_input.get("session_id")
    session = session if isinstance(session, str) and session else None
    project = environ.get("GEMINI_PROJECT_DIR") or hook_input.get("cwd")
    project = project if isinstance(project, str) and project.startswith("/") else None
    point, decide = ROUTES.get(event, (UNMAPPED_PREFIX + event, False))
    payload = vocabulary.canonical(payload_of(hook_input), AGENT)
    if environ:
        payload[cc.AGENT_ENV] = {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)}
    has_session = session is not None
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


def render(event: str, verdict: Verdict | None) -> dict[str, Any]:
    """Gemini CLI's output JSON for ``verdict``: always an object, so that Gemini CLI never reads the
    bridge's stderr as the hook's answer (it does when stdout is empty).

    deny -> ``decision: "deny"`` + ``reason`` where the event can block (BeforeTool: the tool does not
    run and the model is told the reason; AfterTool: the reason replaces the result; BeforeAgent: the
    turn is dropped; AfterAgent: the reason is sent back as a new prompt); elsewhere a deny is named in
    ``systemMessage``, since Gemini CLI ignores it. ask -> ``decision: "ask"`` on BeforeTool.
    ``modifiedInput`` -> ``hookSpecificOutput.tool_input`` (merged over the model's arguments),
    ``injection`` -> ``hookSpecificOutput.additionalContext``. Agent fields a hook gave under
    ``agentOutput`` (``continue``, ``stopReason``, ``suppressOutput``, ``systemMessage``, and
    ``specific`` for other hookSpecificOutput fields such as ``llm_request``, ``toolConfig``,
    ``tailToolCallRequest``, ``clearContext``) pass through."""
    if verdict is None:
        return {}
    v = verdict
    agent = v.agent_output if isinstance(v.agent_output, dict) else {}
    out: dict[str, Any] = {}
    specific: dict[str, Any] = {}
    messages: list[str] = []
    if v.decision == "deny":
        if event in BLOCKING:
            out["decision"] = "deny"
            out["reason"] = cc.why(v, "denied")
        else:
            messages.append(f"hookd: {cc.why(v, 'denied')} (Gemini CLI cannot block {event})")
    elif v.decision == "ask" and event == "BeforeTool":
        out["decision"] = "ask"
        if v.reason:
            out["reason"] = v.reason
    if v.modified_input is not None and event == "BeforeTool":
        specific["tool_input"] = v.modified_input
    if v.injection and event in CONTEXT_EVENTS:
        specific["additionalContext"] = v.injection
    extra = agent.get("specific")
    if isinstance(extra, dict):
        specific.update((k, x) for k, x in extra.items() if k != "hookEventName")
    for key in _UNIVERSAL:
        if key in agent:
            out[key] = agent[key]
    if out.get("continue") is not False:
        out.pop("continue", None)
        out.pop("stopReason", None)
    if isinstance(agent.get("systemMessage"), str) and agent["systemMessage"]:
        messages.insert(0, agent["systemMessage"])
    messages += [f"hookd: hook {e}" for e in v.errors]
    messages += list(v.not_run)
    if messages:
        # Shown to the user: a guard that did not run must never pass for one that allowed.
        out["systemMessage"] = "\n".join(messages)
    if specific:
        out["hookSpecificOutput"] = {"hookEventName": event, **specific}
    return out


def fail_closed(event: str, why: str) -> dict[str, Any] | None:
    """The answer under --fail-closed when hookd cannot be asked: deny tool calls, leave the rest alone."""
    if event != "BeforeTool":
        return None
    return {"decision": "deny", "reason": why}
