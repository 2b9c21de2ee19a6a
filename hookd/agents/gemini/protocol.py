"""Gemini CLI's hook protocol mapped onto hookd points, as pure functions.

Gemini CLI copied Claude Code's command hooks (JSON on stdin, JSON on stdout, exit code 2 blocks)
with its own event names, a top-level ``decision``/``reason`` on every event, rewrites under
``hookSpecificOutput`` in snake_case (``tool_input``) and timeouts in milliseconds. Its table below goes
through the one ``route`` and ``render`` of dialect.py; the call, verdict and payload shapes are the Claude
Code bridge's, so hooks see the same payload (``toolName``, ``args``, ``hookInput``...) from either agent,
and the environment Gemini CLI starts a hook with travels under ``agentEnv``. The answer is always an
object (``always_answer``): Gemini CLI reads the bridge's stderr as the hook's answer when stdout is
empty. docs/bridges.md has the table.
"""

from __future__ import annotations

from typing import Any

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc
from hookd.agents.dialect import Decided, Verdict

AGENT = "gemini"
UNMAPPED_PREFIX = "custom.gemini."

# Gemini CLI event -> the Claude Code event it is (its point, and whether the bridge asks for a decision), or
# whether its custom point decides. Every event of Gemini CLI's hooks reference (HookEventName in
# packages/core/src/hooks/types.ts) is here. A decision on an observer point of the catalog is refused by the
# daemon (wrong_kind); the bridge then emits.
ROUTES = dialect.routes_like(
    cc.DIALECT,
    UNMAPPED_PREFIX,
    {
        "BeforeTool": "PreToolUse",
        "AfterTool": "PostToolUse",
        "BeforeAgent": "UserPromptSubmit",
        "AfterAgent": "Stop",
        "SessionStart": "SessionStart",
        "SessionEnd": "SessionEnd",
        "PreCompress": "PreCompact",
        "Notification": "Notification",
        "BeforeModel": True,
        "AfterModel": True,
        "BeforeToolSelection": True,
    },
)
SESSION_END = "SessionEnd"
# Gemini CLI starts a process for every command hook it runs, about as dear as a tool call itself, so the
# events it fires on every model request (and AfterModel on every streamed chunk) are not installed by
# default: with them a tool call would start four hooks, not two. They map to custom.gemini.* points only,
# which no hookd guard needs; the Gemini CLI hooks written for them still import, and
# `hookd bridge install gemini --all-events` installs them for those.
NOT_INSTALLED = {
    "AfterModel": "Gemini CLI fires AfterModel for every streamed chunk",
    "BeforeModel": "Gemini CLI fires BeforeModel before every model request",
    "BeforeToolSelection": "Gemini CLI fires BeforeToolSelection before every model request",
}
INSTALLED_EVENTS: tuple[str, ...] = tuple(e for e in ROUTES if e not in NOT_INSTALLED)
ALL_EVENTS: tuple[str, ...] = tuple(ROUTES)  # `--all-events`
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
# What stays under hookInput: Claude Code's common fields (the payload is the same from either agent) and the timestamp.
PAYLOAD_COMMON = cc.COMMON_FIELDS | {"timestamp"}


def decision_fields(event: str, v: Verdict, agent: dict[str, Any], tool_name: str | None = None) -> Decided:
    """The event's decision in Gemini CLI's words.

    deny -> ``decision: "deny"`` + ``reason`` where the event can block (BeforeTool: the tool does not
    run and the model is told the reason; AfterTool: the reason replaces the result; BeforeAgent: the
    turn is dropped; AfterAgent: the reason is sent back as a new prompt); elsewhere a deny is named in
    ``systemMessage``, since Gemini CLI ignores it. ask -> ``decision: "ask"`` on BeforeTool.
    ``modifiedInput`` -> ``hookSpecificOutput.tool_input`` (merged over the model's arguments),
    ``injection`` -> ``hookSpecificOutput.additionalContext``; other hookSpecificOutput fields a hook
    gave under ``agentOutput.specific`` (``llm_request``, ``toolConfig``, ``tailToolCallRequest``,
    ``clearContext``) pass through."""
    out: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    notes: list[str] = []
    if v.decision == "deny":
        if event in BLOCKING:
            out["decision"] = "deny"
            out["reason"] = cc.why(v, "denied")
        else:
            notes.append(f"hookd: {cc.why(v, 'denied')} (Gemini CLI cannot block {event})")
    elif v.decision == "ask" and event == "BeforeTool":
        out["decision"] = "ask"
        if v.reason:
            out["reason"] = v.reason
    if v.modified_input is not None and event == "BeforeTool":
        fields["tool_input"] = v.modified_input
    if v.injection and event in CONTEXT_EVENTS:
        fields["additionalContext"] = v.injection
    extra = agent.get("specific")
    if isinstance(extra, dict):
        fields.update((k, x) for k, x in extra.items() if k != "hookEventName")
    return Decided({"hookEventName": event, **fields} if fields else None, out, notes)


DIALECT = dialect.Dialect(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    common_fields=PAYLOAD_COMMON,
    decision_fields=decision_fields,
    project_env="GEMINI_PROJECT_DIR",
    session_end=SESSION_END,
    always_answer=True,
    fail_closed_event="BeforeTool",
    session_end_timeout=dialect.SESSION_END_TIMEOUT,
)
