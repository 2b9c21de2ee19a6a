"""Claude Code's hook contract, from the hook's side: what a hook written for Claude Code is given
and what its answer means. Pure functions; hookd/runners/claude.py does the process work.

``hook_input`` rebuilds the agent's hook input from hookd's payload (the bridge sends each field
once: the event's own fields in camelCase, the rest under ``hookInput``; the chain's current
``args``/``output`` are what the hook sees, so an earlier hook's rewrite is seen). ``matches``
applies the settings ``matcher`` exactly as Claude Code does. ``answer`` reads a hook's exit code,
stdout and stderr as Claude Code's hooks reference says ("Exit code output", "Exit code 2 behavior
per event", "JSON output", "Decision control"; docs/bridges.md cites the version read) and gives
seed 000's HookDecision, with the fields a HookDecision has no room for under ``agentOutput``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from hookd.agents import hook_format
from hookd.agents.claude_code.protocol import MATCHER_FIELDS, ROUTES
from hookd.agents.dialect import AGENT_ENV, HOOK_INPUT, snake
from hookd.core import vocabulary

POINT_EVENTS = {point: event for event, (point, _) in ROUTES.items()}
# Payload keys that are hookd's, not the agent's: a hook written for the agent never sees them.
_NOT_INPUT = frozenset({HOOK_INPUT, AGENT_ENV, vocabulary.AGENT_KEY, vocabulary.AGENT_TOOL_KEY})
_EXACT = re.compile(r"[A-Za-z0-9_\- ,|]*")
# Exit code 2 blocks these events; the block's message is the JSON decision's reason when there is
# one, otherwise stderr (it blocks even beside a JSON allow).
BLOCKING_EXIT_2 = frozenset(
    {
        "PreToolUse",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "Stop",
        "SubagentStop",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "ConfigChange",
        "PostToolBatch",
        "PreCompact",
        "PreModelSwitch",
        "Elicitation",
        "ElicitationResult",
        "WorktreeCreate",
    }
)
# Exit 2 after the fact: stderr is fed to Claude beside the tool's result (the tool already ran).
STDERR_TO_CLAUDE = frozenset({"PostToolUse", "PostToolUseFailure"})
# Exit 2 where stderr is shown to the user only.
STDERR_TO_USER = frozenset(
    {"SessionStart", "SubagentStart", "SessionEnd", "PostCompact", "PostModelSwitch", "CwdChanged", "FileChanged", "Notification", "Setup"}
)
# Events whose output Claude Code ignores whatever the exit code (side effects only).
IGNORES_OUTPUT = frozenset({"StopFailure", "WorktreeRemove"})
# Top-level `decision: "block"` + `reason`.
TOP_LEVEL_BLOCK = frozenset(
    {
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Stop",
        "SubagentStop",
        "ConfigChange",
        "PreCompact",
        "TaskCreated",
        "PreModelSwitch",
    }
)
# Plain stdout on exit 0 is context Claude sees on these events (elsewhere it goes to the debug log).
TEXT_IS_CONTEXT = frozenset({"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "PostModelSwitch"})
# Universal output fields, carried as they are.
UNIVERSAL = ("continue", "stopReason", "suppressOutput", "systemMessage", "terminalSequence")
# hookSpecificOutput fields with a HookDecision equivalent; every other one travels in agentOutput.
_MAPPED_SPECIFIC = frozenset(
    {"hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext", "decision"}
    | {"updatedToolOutput", "updatedMCPToolOutput", "retry"}
)


def hook_input(payload: Mapping[str, Any], point: str, session: str, project: str, cwd: str) -> dict[str, Any]:
    """The Claude Code hook input for a hookd call."""
    original = payload.get(HOOK_INPUT)
    out: dict[str, Any] = dict(original) if isinstance(original, dict) else {}
    for key, value in payload.items():
        if key not in _NOT_INPUT:
            out[snake(key)] = value
    if vocabulary.TOOL_KEY in payload:
        # The agent's own tool name and arguments, as a hook written for the agent expects them.
        name, args = vocabulary.agent_input(payload)
        if name is not None:
            out["tool_name"] = name
        if vocabulary.ARGS_KEY in payload:
            out["tool_input"] = args
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


# The hook failed the way Claude Code reports as a non-blocking error (a `hook error` notice).
NotADecision = hook_format.NotADecision


def first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else ""


def read_json(stdout: str) -> tuple[dict[str, Any] | None, str | None]:
    """Stdout as Claude Code reads it: JSON when it starts with { and ends with } (around whitespace).

    Returns (object, None), (None, why it is not valid), or (None, None) for plain text."""
    text = stdout.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None, None
    try:
        value = json.loads(text)
    except ValueError as exc:
        return None, f"hook output is not valid JSON: {exc}"
    if not isinstance(value, dict):
        return None, "hook output is not a JSON object"
    return value, None


def agent_output(obj: Mapping[str, Any], specific: Mapping[str, Any], universal: tuple[str, ...], mapped: frozenset[str]) -> dict[str, Any]:
    """The HookDecision's ``agentOutput``: the ``universal`` fields that say something (``continue: false`` with its
    stopReason, ``suppressOutput: true``, the rest as they are), and the hookSpecificOutput fields not ``mapped``."""
    agent: dict[str, Any] = {k: obj[k] for k in universal if k in obj}
    if agent.get("continue") is not False:
        agent.pop("continue", None)
        agent.pop("stopReason", None)
    if agent.get("suppressOutput") is not True:
        agent.pop("suppressOutput", None)
    extra = {k: v for k, v in specific.items() if k not in mapped}
    if extra:
        agent["specific"] = extra
    return agent


def _agent(obj: Mapping[str, Any], specific: Mapping[str, Any]) -> dict[str, Any]:
    return agent_output(obj, specific, UNIVERSAL, _MAPPED_SPECIFIC)


def answer(event: str, code: int, stdout: str, stderr: str) -> dict[str, Any] | None:
    """Seed 000's HookDecision (as JSON data) for a Claude Code hook's result; None abstains.

    Raises NotADecision for what Claude Code reports as a non-blocking hook error."""
    if event in IGNORES_OUTPUT:
        return None
    obj, bad = read_json(stdout)
    if code == 2:
        return _exit_2(event, obj or {}, stderr)
    if obj is None:
        if bad is not None:
            raise NotADecision(bad)
        if code != 0:
            raise NotADecision(f"Failed with non-blocking status code: {first_line(stderr) or f'exit {code}'}")
        text = stdout.strip()
        return {"injection": text} if text and event in TEXT_IS_CONTEXT else None
    return _decided(event, obj)


def _exit_2(event: str, obj: Mapping[str, Any], stderr: str) -> dict[str, Any] | None:
    message = stderr.strip()
    specific = obj.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if event in BLOCKING_EXIT_2:
        reason = obj.get("reason") or specific.get("permissionDecisionReason") or message
        out: dict[str, Any] = {"decision": "deny", "reason": reason or f"blocked by a {event} hook (exit 2)"}
        agent = _agent(obj, {})
        if agent:
            out["agentOutput"] = agent
        return out
    if event in STDERR_TO_CLAUDE and message:
        return {"decision": "deny", "reason": message}
    if event in STDERR_TO_USER and message:
        return {"agentOutput": {"systemMessage": message}}
    return None


def _decided(event: str, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    specific = obj.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    out: dict[str, Any] = {}
    agent = _agent(obj, specific)
    if event in ("PreToolUse", "PreModelSwitch"):
        legacy = {"approve": "allow", "block": "deny"}.get(str(obj.get("decision")))
        verdict = specific.get("permissionDecision") or legacy
        if verdict == "defer" and event == "PreToolUse":
            out["decision"] = "ask"
            agent["defer"] = True
        elif verdict in ("allow", "deny", "ask"):
            out["decision"] = verdict
        reason = specific.get("permissionDecisionReason") or obj.get("reason")
        if reason and "decision" in out:
            out["reason"] = reason
        if event == "PreToolUse" and isinstance(specific.get("updatedInput"), dict):
            out["modifiedInput"] = specific["updatedInput"]
    elif event == "PermissionRequest":
        chosen = specific.get("decision")
        if isinstance(chosen, dict) and chosen.get("behavior") in ("allow", "deny"):
            out["decision"] = chosen["behavior"]
            if chosen.get("message"):
                out["reason"] = chosen["message"]
            if isinstance(chosen.get("updatedInput"), dict):
                out["modifiedInput"] = chosen["updatedInput"]
            if isinstance(chosen.get("updatedPermissions"), list) and chosen["behavior"] == "allow":
                agent["updatedPermissions"] = chosen["updatedPermissions"]
            if chosen.get("interrupt") is True and chosen["behavior"] == "deny":
                agent["interrupt"] = True
    elif event == "PermissionDenied" and specific.get("retry") is True:
        agent["retry"] = True
    if event in TOP_LEVEL_BLOCK and obj.get("decision") == "block" and "decision" not in out:
        out["decision"] = "deny"
        if obj.get("reason"):
            out["reason"] = obj["reason"]
    if event == "PostToolUse":
        replaced = specific.get("updatedToolOutput", specific.get("updatedMCPToolOutput"))
        if replaced is not None:
            out["modifiedOutput"] = replaced
    if isinstance(specific.get("additionalContext"), str) and specific["additionalContext"]:
        out["injection"] = specific["additionalContext"]
    if agent:
        out["agentOutput"] = agent
    return out or None


# The name the previous version of this module gave ``answer``, kept for callers of the Python bridge.
def decision(event: str, code: int, stdout: str, stderr: str) -> dict[str, Any] | None:
    return answer(event, code, stdout, stderr)


def _input_for(payload: Mapping[str, Any], _matcher: str | None, environ: Mapping[str, str], cwd: str) -> dict[str, Any]:
    point, session, project = hook_format.context(environ)
    return hook_input(payload, point, session, project, cwd)


def _environment(environ: Mapping[str, str], _payload: Mapping[str, Any], _data: Mapping[str, Any]) -> dict[str, str]:
    env = dict(environ)
    project = env.get("HOOKD_PROJECT_DIR", "")
    if project:
        env.setdefault("CLAUDE_PROJECT_DIR", project)
    return env


def _argv(cmd: list[str], env: Mapping[str, str]) -> list[str]:
    return [a.replace("${CLAUDE_PROJECT_DIR}", env.get("CLAUDE_PROJECT_DIR", "")) for a in cmd]


# `hookd bridge run-hook claude-code`: a hook written for Claude Code, run by hookd/agents/adapter.py.
FORMAT = hook_format.HookFormat(
    prog="hookd bridge run-hook",
    description="Run a hook written for Claude Code under hookd: translate hookd's payload to the Claude Code hook "
    "input, run CMD, and translate its output JSON or exit code 2 to a hookd decision.",
    option="--matcher",
    option_help="the settings matcher; the hook abstains on events it does not match",
    hook_input=_input_for,
    environment=_environment,
    selected=matches,
    argv=_argv,
    cwd=lambda _data: None,
    answer=lambda event, code, stdout, stderr, _payload: decision(event, code, stdout, stderr),
)
