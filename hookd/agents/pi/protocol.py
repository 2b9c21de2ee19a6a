"""pi's events as hookd's points: the one table the extension is given at install.

pi (``@mariozechner/pi-coding-agent``) has no command or HTTP hooks: it loads TypeScript extensions into its own
process, and an extension's handler for an event may answer it (``tool_call`` with ``{block: true, reason}``,
``input`` with ``{action: "handled"}``, ...). hookd's extension (extension.ts beside this module) registers a handler
for each event below and makes the call the table names; install writes the table into it as JSON
(:func:`table`), so the mapping exists once, here. What each answer becomes in pi is the extension's part
(docs/bridges.md, "pi").
"""

from __future__ import annotations

from typing import Any, NamedTuple

AGENT = "pi"
CUSTOM_PREFIX = "custom.pi."


class Route(NamedTuple):
    point: str
    decide: bool  # a decide (pi reads an answer there); otherwise an emit
    what: str  # what pi does with the answer, for the documentation


ROUTES: dict[str, Route] = {
    "session_start": Route("agent.turn.start", True, "the session is attached first; an injection goes with the next prompt"),
    "input": Route("chat.message", True, "a deny drops the prompt; `modifiedInput.prompt` replaces its text"),
    "before_agent_start": Route("experimental.chat.system.transform", True, "an injection is appended to the system prompt"),
    "agent_start": Route(CUSTOM_PREFIX + "agent_start", False, ""),
    "turn_start": Route("agent.step.before", False, ""),
    "tool_call": Route("tool.approval.pre", True, "a deny blocks the tool; `modifiedInput` rewrites its arguments"),
    "tool_result": Route("tool.execute.after", True, "a deny or `modifiedOutput` replaces the result; an injection is appended"),
    "tool_execution_end": Route("tool.execute.denied", False, "sent only for a call blocked before it ran"),
    "turn_end": Route("turn.end", False, ""),
    "agent_end": Route("agent.turn.end", False, ""),
    "session_before_compact": Route("experimental.session.compacting", True, "a deny cancels the compaction"),
    "session_compact": Route("chat.compression", False, ""),
    "session_before_switch": Route(CUSTOM_PREFIX + "session_before_switch", True, "a deny cancels the switch"),
    "session_before_fork": Route(CUSTOM_PREFIX + "session_before_fork", True, "a deny cancels the fork"),
    "session_before_tree": Route(CUSTOM_PREFIX + "session_before_tree", True, "a deny cancels the navigation"),
    "model_select": Route(CUSTOM_PREFIX + "model_select", False, ""),
    "session_shutdown": Route("chat.finished", False, "then the session is disposed"),
}
# A tool call that failed is told on this point instead of tool.execute.after (pi's tool_result with isError).
TOOL_ERROR_POINT = "tool.execute.error"


def table() -> dict[str, Any]:
    """The routes as JSON data for the extension: event -> [point, decide]."""
    return {event: [r.point, r.decide] for event, r in ROUTES.items()} | {"tool_result_error": [TOOL_ERROR_POINT, False]}
