#!/usr/bin/env bash
# SessionStart (startup): the same kind of context as JSON additionalContext, read from $CLAUDE_PROJECT_DIR.
input=$(cat)
source=$(printf '%s' "$input" | jq -r '.source // "startup"')
[ "$source" = "startup" ] || exit 0
cd "$CLAUDE_PROJECT_DIR" 2>/dev/null || exit 0
branch=$(git branch --show-current 2>/dev/null)
recent=$(git log --format=%s -3 2>/dev/null)
jq -n --arg ctx "Current branch: $branch
Recent commits:
$recent" '{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: $ctx}}'
