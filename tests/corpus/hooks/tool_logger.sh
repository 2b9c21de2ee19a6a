#!/usr/bin/env bash
# PostToolUse: append one JSON line per tool call to a log under the project (a relative path).
input=$(cat)
mkdir -p .claude/logs
printf '%s' "$input" | jq -c '{session: .session_id, tool: .tool_name, event: .hook_event_name}' >> .claude/logs/tool-calls.jsonl
exit 0
