"""What Claude Code does with a command hook's result, written from its hooks reference for the tests.

Deliberately separate from hookd's own reading (hookd/agents/claude_code/hooks.py): the corpus test reads a
hook's raw result (run as Claude Code runs it) and the bridge's answer (the same hook through hookd)
with this one function and compares the effects, so a misreading on hookd's side shows as a mismatch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

BLOCKS_ON_EXIT_2 = {"PreToolUse", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "TaskCreated", "ConfigChange"}
EXIT_2_TO_CLAUDE = {"PostToolUse", "PostToolUseFailure"}
EXIT_2_TO_USER = {"SessionStart", "SubagentStart", "SessionEnd", "PostCompact", "Notification", "CwdChanged", "FileChanged"}
STDOUT_IS_CONTEXT = {"UserPromptSubmit", "SessionStart"}
TOP_LEVEL = {"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "ConfigChange"}


@dataclass
class Effect:
    """What Claude Code does: the decision, what Claude reads, what the user sees."""

    decision: str | None = None  # block (top-level or exit 2), allow / deny / ask / defer (PreToolUse)
    to_claude: list[str] = field(default_factory=list)  # reasons fed back, context
    to_user: list[str] = field(default_factory=list)  # system messages, stop reasons, error notices
    updated_input: dict[str, Any] | None = None
    stop: bool = False  # continue: false

    def key(self) -> tuple[Any, ...]:
        """What must be the same for Claude Code to act the same (messages to the user are compared apart)."""
        return (self.decision, self.to_claude, self.updated_input, self.stop)


def read(event: str, code: int, stdout: str, stderr: str) -> Effect:
    effect = Effect()
    text = stdout.strip()
    obj: dict[str, Any] | None = None
    if text.startswith("{") and text.endswith("}"):
        try:
            parsed = json.loads(text)
            obj = parsed if isinstance(parsed, dict) else None
        except ValueError:
            obj = None
        if obj is None and code != 2:
            effect.to_user.append("hook error: invalid JSON output")
            return effect
    err = stderr.strip()
    if code == 2:
        reason = None
        if obj is not None:
            specific = obj.get("hookSpecificOutput") or {}
            reason = obj.get("reason") or specific.get("permissionDecisionReason")
        if event in BLOCKS_ON_EXIT_2:
            effect.decision = "block" if event != "PreToolUse" else "deny"
            effect.to_claude.append(reason or err)
        elif event in EXIT_2_TO_CLAUDE:
            effect.decision = "block"
            effect.to_claude.append(err)
        elif event in EXIT_2_TO_USER and err:
            effect.to_user.append(err)
        return effect
    if obj is None:
        if code != 0:
            effect.to_user.append(f"Failed with non-blocking status code: {err.splitlines()[0] if err else code}")
        elif text and event in STDOUT_IS_CONTEXT:
            effect.to_claude.append(text)
        return effect
    if obj.get("continue") is False:
        effect.stop = True
        if obj.get("stopReason"):
            effect.to_user.append(obj["stopReason"])
    if obj.get("systemMessage"):
        effect.to_user.append(obj["systemMessage"])
    specific = obj.get("hookSpecificOutput") if isinstance(obj.get("hookSpecificOutput"), dict) else {}
    if event == "PreToolUse":
        decision = specific.get("permissionDecision") or {"approve": "allow", "block": "deny"}.get(str(obj.get("decision")))
        if decision in ("allow", "deny", "ask", "defer"):
            effect.decision = decision
            if decision == "deny":
                effect.to_claude.append(specific.get("permissionDecisionReason") or obj.get("reason") or "")
        if isinstance(specific.get("updatedInput"), dict):
            effect.updated_input = specific["updatedInput"]
    elif event in TOP_LEVEL and obj.get("decision") == "block":
        effect.decision = "block"
        effect.to_claude.append(obj.get("reason") or "")
    if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"]:
        effect.to_claude.append(specific["additionalContext"])
    return effect
