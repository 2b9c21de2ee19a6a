"""Factory Droid's hook protocol: Claude Code's events, input and answers, under its own name and tools.

Droid reads Claude Code-format hooks from the ``hooks`` key of its settings.json, for nine of Claude
Code's events, with Claude Code's input (``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
``hook_event_name``, ``tool_name``, ``tool_input``...) and answers (``hookSpecificOutput.permissionDecision``,
``updatedInput``, ``additionalContext``, ``decision: "block"``, exit code 2), so Claude Code's table serves
it: what differs is that its calls name ``droid``, its tools (``Execute``, ``Create``, ``Edit``...) are put
into hookd's vocabulary with Droid's table, and its project is ``$FACTORY_PROJECT_DIR``. It takes only
command hooks, so it reaches hookd through the shim (``--agent droid``, the endpoint's /droid/EVENT) or the
Python bridge `hookd bridge droid`; either carries the agent's environment with each call.
"""

from __future__ import annotations

from hookd.agents import dialect
from hookd.agents.claude_code import protocol as cc

AGENT = "droid"
UNMAPPED_PREFIX = "custom.droid."
# Every event Droid fires (its settings schema's hook events), routed as Claude Code's are.
EVENTS = (
    "PreToolUse", "PostToolUse", "Notification", "UserPromptSubmit", "Stop", "SubagentStop", "PreCompact", "SessionStart", "SessionEnd",
)  # fmt: skip
ROUTES = dialect.routes_like(cc.DIALECT, UNMAPPED_PREFIX, {e: e for e in EVENTS})
SESSION_END = cc.SESSION_END
INSTALLED_EVENTS: tuple[str, ...] = EVENTS
MATCHER_FIELDS = {event: field for event, field in cc.MATCHER_FIELDS.items() if event in ROUTES}
PROJECT_ENV = "FACTORY_PROJECT_DIR"

DIALECT = cc.DIALECT._replace(
    agent=AGENT,
    routes=ROUTES,
    unmapped_prefix=UNMAPPED_PREFIX,
    project_env=PROJECT_ENV,
    remember_env=False,  # every call comes from a command (the shim or the bridge), which carries the environment
    exit2_only=frozenset(),
)
