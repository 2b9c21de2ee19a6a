"""A sample payload for every hook point: the shape a hook on that point sees.

These are examples of what agents send (the seeds' field names; the Claude Code
bridge renames its fields to the same: ``tool_name`` is ``toolName``,
``tool_input`` is ``args``). A real payload carries whatever the agent sends;
hookd passes it through untouched. `hookd points --example POINT` prints one,
ready for `hookd decide` or `hookd explain --payload`.
"""

from __future__ import annotations

from typing import Any

_SHELL = {"toolName": "execute_command", "args": {"command": "rm -rf build/"}, "callId": "call_01"}
_TOKENS = {"input": 1200, "output": 310}

EXAMPLES: dict[str, dict[str, Any]] = {
    "tool.execute.before": _SHELL,
    "tool.execute.after": {**_SHELL, "output": "", "duration": 41},
    "tool.execute.error": {**_SHELL, "error": "rm: cannot remove 'build/': Permission denied"},
    "tool.execute.denied": {**_SHELL, "reason": "refused by no-rm-root"},
    "tool.approval.pre": _SHELL,
    "tool.approval.post": {**_SHELL, "decision": "allow"},
    "llm.request.before": {"model": "claude-sonnet-4", "messages": 12},
    "llm.response.after": {"model": "claude-sonnet-4", "tokens": _TOKENS, "duration": 2300},
    "llm.response.error": {"model": "claude-sonnet-4", "error": "rate limited (429)"},
    "session.save.before": {"sessionId": "s1", "path": "~/.codingcode/sessions/s1.json"},
    "session.save.after": {"sessionId": "s1", "path": "~/.codingcode/sessions/s1.json"},
    "agent.turn.start": {"source": "startup", "prompt": "fix the failing test"},
    "agent.step.before": {"step": 3},
    "agent.turn.stop": {"reason": "end_turn", "turn": 3},
    "agent.turn.end": {"turn": 3, "reason": "end_turn", "duration": 5400},
    "agent.subagent.spawn.before": {"agentType": "explorer", "prompt": "find where the socket path is built"},
    "agent.subagent.spawn.after": {"agentType": "explorer", "agentId": "sub_01"},
    "agent.subagent.complete": {"agentType": "explorer", "agentId": "sub_01", "duration": 18000},
    "chat.message": {"text": "please run the tests", "parts": [{"type": "text", "text": "please run the tests"}]},
    "chat.params": {"model": "claude-sonnet-4", "temperature": 0.7, "topP": 1.0, "topK": 40},
    "chat.headers": {"model": "claude-sonnet-4", "headers": {"x-team": "core"}},
    "chat.response": {"model": "claude-sonnet-4", "tokens": _TOKENS, "cost": 0.0123, "duration": 2300},
    "chat.error": {"model": "claude-sonnet-4", "error": "connection reset"},
    "chat.compression": {"tokensBefore": 120000, "tokensAfter": 38000},
    "chat.finished": {"reason": "exit", "tokens": _TOKENS, "turns": 5},
    "user.approval": {"action": "git push --force", "risk": "high"},
    "turn.end": {"duration": 5400, "stopReason": "end_turn"},
    "command.execute.before": {"command": "/review", "parts": [{"type": "text", "text": "/review src/"}]},
    "tool.definition": {"tools": [{"name": "execute_command", "description": "Run a shell command"}]},
    "shell.env": {"env": {"PATH": "/usr/local/bin:/usr/bin:/bin"}},
    "permission.ask": {"toolName": "execute_command", "args": {"command": "git push"}, "permission": "execute_command"},
    "experimental.chat.messages.transform": {"messages": [{"role": "user", "content": "please run the tests"}]},
    "experimental.chat.system.transform": {"system": "You are a careful coding agent."},
    "experimental.session.compacting": {"trigger": "auto", "prompt": "Summarise the session so far."},
    "experimental.text.complete": {"text": "All 42 tests pass."},
    "config": {"config": {"model": "claude-sonnet-4"}},
    "event": {"toolName": "execute_command", "args": {"command": "ls"}},
}


def example(point: str) -> dict[str, Any]:
    """The sample payload of ``point`` (custom points: an empty object). Raises points.UnknownPoint."""
    from hookd.core import points

    points.lookup(point)
    return dict(EXAMPLES.get(point, {}))
