"""Run a hook written for Claude Code as a hookd command hook: the reverse of the bridge.

A Claude Code hook reads Claude Code's hook input and answers with Claude
Code's output JSON or exit code 2. ``hook_input`` rebuilds that input from
hookd's payload (the bridge sends each field once: the event's own fields in
camelCase, the rest under ``hookInput``; the chain's current ``args``/``output``
are what the hook sees, so an earlier hook's rewrite is seen), ``matches``
applies the settings `matcher` exactly as Claude Code does, and ``decision`` turns the hook's answer into seed 000's HookDecision. Pure
functions; ``hookd.bridges.adapter`` does the process work.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from .claude_code import HOOK_INPUT, MATCHER_FIELDS, ROUTES, snake

POINT_EVENTS = {point: event for event, (point, _) in ROUTES.items()}
_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")
# Events whose exit code 2 blocks (Claude Code hooks reference, "Exit code 2 behavior per event").
BLOCKING_EXIT_2 = frozenset({"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"})
TOP_LEVEL_BLOCK = frozenset({"PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact"})
TEXT_IS_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})


def hook_input(payload: Mapping[str, Any], point: str, session: str, project: str, cwd: str) -> dict[str, Any]:
    """The Claude Code hook input for a hookd call."""
    original = payload.get(HOOK_INPUT)
    out: dict[str, Any] = dict(original) if isinstance(original, dict) else {}
    for key, value in payload.items():
        if key != HOOK_INPUT:
            out[snake(key)] = value
    out.setdefault("hook_event_name", POINT_EVENTS.get(point) or point.removeprefix("custom.claude."))
    if session:
        out.setdefault("session_id", session)
    out.setdefault("cwd", project or cwd)
    return out


def matches(matcher: str | None, event: str, data: Mapping[str, Any]) -> bool:
    """Claude Code's matcher rule: empty or * matches all; letters, digits, _ - space , | is an exact list; else a regex search."""
    if matcher is None or matcher in ("", "*"):
        return True
    field = MATCHER_FIELDS.get(event)
    value = data.get(field) if field else None
    if not isinstance(value, str):
        return False
    if _EXACT.fullmatch(matcher):
        return value in {part.strip() for part in re.split(r"[|,]", matcher)}
    try:
        return re.search(matcher, value) is not None
    except re.error:
        return False


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class NotADecision(Exception):
    """The hook failed the way Claude Code reports as a non-blocking error."""


def decision(event: str, code: int, stdout: str, stderr: str) -> dict[str, Any] | None:
    """Seed 000's HookDecision for a Claude Code hook's result; None abstains. Raises NotADecision."""
    obj = _json_object(stdout)
    specific = obj.get("hookSpecificOutput") if obj else None
    specific = specific if isinstance(specific, dict) else {}
    out: dict[str, Any] = {}
    if code == 2:
        if event in BLOCKING_EXIT_2:
            reason = (obj or {}).get("reason") or specific.get("permissionDecisionReason") or stderr.strip()
            return {"decision": "deny", "reason": reason or f"blocked by a {event} hook (exit 2)"}
        if event in ("PostToolUse", "PostToolUseFailure") and stderr.strip():
            # Exit 2 here shows stderr to Claude next to the result: context, not a block.
            return {"injection": stderr.strip()}
        return None
    if obj is None:
        if code != 0:
            raise NotADecision(f"exited with status {code}" + (f": {stderr.strip().splitlines()[0]}" if stderr.strip() else ""))
        text = stdout.strip()
        return {"injection": text} if text and event in TEXT_IS_CONTEXT else None
    if event == "PreToolUse":
        legacy = {"approve": "allow", "block": "deny"}.get(str(obj.get("decision")))
        verdict = specific.get("permissionDecision") or legacy
        if verdict in ("allow", "deny", "ask"):
            out["decision"] = verdict
            reason = specific.get("permissionDecisionReason") or obj.get("reason")
            if reason:
                out["reason"] = reason
        if isinstance(specific.get("updatedInput"), dict):
            out["modifiedInput"] = specific["updatedInput"]
    elif event == "PermissionRequest":
        chosen = specific.get("decision")
        if isinstance(chosen, dict) and chosen.get("behavior") in ("allow", "deny"):
            out["decision"] = chosen["behavior"]
            if chosen.get("message"):
                out["reason"] = chosen["message"]
            if isinstance(chosen.get("updatedInput"), dict):
                out["modifiedInput"] = chosen["updatedInput"]
    elif event in TOP_LEVEL_BLOCK and obj.get("decision") == "block":
        out["decision"] = "deny"
        if obj.get("reason"):
            out["reason"] = obj["reason"]
    if event == "PostToolUse":
        replaced = specific.get("updatedToolOutput", specific.get("updatedMCPToolOutput"))
        if replaced is not None:
            out["modifiedOutput"] = replaced
    if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"]:
        out["injection"] = specific["additionalContext"]
    return out or None
