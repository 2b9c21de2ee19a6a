"""Cline CLI's hook protocol (the 3.x CLI): its table in hookd's agent dialect (hookd/agents/dialect.py).

Cline runs every executable file named after an event (`PreToolUse`, `PostToolUse`, `TaskStart`, ...,
an extension such as `.sh` or `.py` allowed) in its hook folders, with one JSON object on stdin: the
task (`taskId`), the workspace (`workspaceRoots`), the tool call (`tool_call: {id, name, input}`, and
again under `preToolUse.parameters` with every value JSON-encoded as a string). It reads back
`{cancel, contextModification|context, errorMessage, overrideInput}`. Observed with the real CLI
(3.0.65): `cancel` aborts the whole run and the model never sees why; `context` only adds a message; a
hook that fails, times out (120 s) or prints no JSON object lets the tool run. The one answer that stops
one tool call and tells the model why is `overrideInput`, the tool's input replaced: the shell tool's
commands become one harmless command that prints the reason and fails, and the model reads the reason
in the tool's result. For another tool there is no such input, so a deny cancels the run there.

The shell tool is `run_commands` with `{"commands": [...]}`: hookd sees it as `execute_command` with
`args.command` the commands joined by newlines, as the shell script they make, so a guard reads every
command at once (and `args.commands` as Cline sent them); hookd/core/vocabulary.py holds that rule. A
rewrite is written back into `commands`: the one script when a guard changed `args.command`, else the
list it gave. TaskStart, UserPromptSubmit,
TaskComplete and the other task events run detached (Cline reads no answer), so they are observed only.
"""

from __future__ import annotations

from typing import Any

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc
from hookd.agents.dialect import Decided, Verdict

AGENT = "cline"
UNMAPPED_PREFIX = "custom.cline."
SHELL = "run_commands"

# Cline event (its hook file's name) -> the Claude Code event it is (its point), or a custom point of its own.
# Cline reads an answer only from PreToolUse and PostToolUse: the others are told, not decided.
ROUTES = dialect.routes_like(
    cc.DIALECT,
    UNMAPPED_PREFIX,
    {
        "PreToolUse": "PreToolUse",
        "PostToolUse": "PostToolUse",
        "TaskStart": "SessionStart",
        "TaskResume": False,
        "UserPromptSubmit": "UserPromptSubmit",
        "TaskComplete": "SessionEnd",
        "TaskCancel": False,
        "TaskError": False,
        "PreCompact": "PreCompact",
        "SessionShutdown": False,
    },
    reads_answer=frozenset({"PreToolUse", "PostToolUse"}),
)
SESSION_START = "TaskStart"
SESSION_END = "TaskComplete"
INSTALLED_EVENTS: tuple[str, ...] = tuple(ROUTES)
TOOL_EVENT = "PreToolUse"
# Fields every event carries: kept under hookInput, not in the payload.
COMMON_FIELDS = frozenset(
    {
        "session_id",
        "cwd",
        "hook_event_name",
        "cline_version",
        "timestamp",
        "session_context",
        "workspace_roots",
        "workspace_info",
        "user_id",
        "agent_id",
        "parent_agent_id",
        "hook_name",
        "iteration",
    }
)
_OWN = {"taskId": "session_id", "tool_call": None, "tool_result": None, "preToolUse": None, "postToolUse": None}
_MARK = "\x01"  # where the shim's deny table puts the reason (hookd/agents/shim): passed through as it is


def shell_command(commands: Any) -> str | None:
    """``run_commands``' commands as the one script they make, one per line; None when they are not a list of strings."""
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        return "\n".join(commands)
    return None


def normalise(hook_input: dict[str, Any]) -> dict[str, Any]:
    """Cline's hook input in the names route reads: the task as the session, the first workspace root as
    the directory, the tool call's name, input and output; the shell tool's commands also as one
    ``command``. The rest keeps its meaning in snake_case; the string-encoded ``parameters`` copy goes."""
    out: dict[str, Any] = {}
    for key, value in hook_input.items():
        if not isinstance(key, str):
            continue
        if key in _OWN:
            if _OWN[key]:
                out[_OWN[key]] = value
            continue
        out.setdefault(dialect.snake(key), value)
    roots = hook_input.get("workspaceRoots")
    info = hook_input.get("workspaceInfo")
    root = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else None
    root = root or (info.get("rootPath") if isinstance(info, dict) else None)
    if isinstance(root, str):
        out["cwd"] = root
    call = hook_input.get("tool_call") or hook_input.get("tool_result")
    if isinstance(call, dict):
        name, args = call.get("name"), call.get("input")
        if isinstance(name, str):
            out["tool_name"] = name
        if isinstance(args, dict):
            out["tool_input"] = args  # the shell tool's `command` is added by the vocabulary (its `joined` rule)
        if isinstance(call.get("id"), str):
            out["tool_call_id"] = call["id"]
        if "output" in call:
            out["tool_response"] = call["output"]
        if call.get("error") is not None:
            out["tool_error"] = call["error"]
    return out


def shell_quoted(text: str) -> str:
    """``text`` in single quotes for sh, bash, zsh and fish alike (a quote closes, is escaped, reopens)."""
    return "'" + text.replace("'", "'\\''") + "'"


def deny_command(reason: str) -> str:
    """The command that stands in for a denied shell call: it runs nothing, prints why on stderr and fails,
    so the model reads the reason in the tool's result. The reason is one line, quoted: it is never run."""
    line = "".join(c if c >= " " or c == _MARK else " " for c in reason)
    return f"printf '%s\\n' {shell_quoted('blocked by hookd: ' + line)} >&2; exit 1"


def decision_fields(event: str, v: Verdict, agent: dict[str, Any], tool_name: str | None = None) -> Decided:
    """The event's decision in Cline's words."""
    top: dict[str, Any] = {}
    notes: list[str] = []
    if event == "PreToolUse":
        if v.decision in ("deny", "ask"):
            # No one can be asked from a hook: a guard that wants a person is not an allow.
            reason = (
                dialect.why(v, "denied")
                if v.decision == "deny"
                else f"{dialect.why(v, 'approval asked')} (a hookd hook asked for approval, which a Cline hook cannot ask for)"
            )
            if tool_name in (None, SHELL):
                top["overrideInput"] = {"commands": [deny_command(reason)]}
            else:
                # Only the shell tool's input can be replaced by something harmless: the run stops instead.
                top.update(cancel=True, errorMessage=reason)
        elif isinstance(v.modified_input, dict):
            # In Cline's own keys already (dialect.for_agent): a rewritten script is one of `commands`.
            top["overrideInput"] = v.modified_input
    elif event == "PostToolUse" and v.decision == "deny":
        # The tool has run; Cline's only answer that stops is `cancel`, which ends the run: the model is told instead.
        top["context"] = f"hookd: {dialect.why(v, 'denied')}"
        notes.append(f"hookd: {dialect.why(v, 'denied')} (Cline cannot block PostToolUse; the model was told)")
    if v.injection and event in ("PreToolUse", "PostToolUse"):
        top["context"] = "\n".join(x for x in (top.get("context"), v.injection) if x)
    if event == "PostToolUse" and v.modified_output is not None:
        notes.append("hookd: Cline cannot replace a tool's output; the rewrite was not applied")
    return Decided(None, top, notes)


DIALECT = dialect.Dialect(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    common_fields=COMMON_FIELDS,
    decision_fields=decision_fields,
    session_start=SESSION_START,
    session_end=SESSION_END,
    flow=lambda event, agent, out: None,  # Cline reads no `continue`, `stopReason` or `suppressOutput`
    normalise=normalise,
    fail_closed_event=TOOL_EVENT,
    shell_reason=frozenset({TOOL_EVENT}),
)
