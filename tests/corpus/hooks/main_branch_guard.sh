#!/usr/bin/env bash
# PreToolUse (Bash): no git commit or push while the working tree is on main or master (JSON deny).
input=$(cat)
command=$(printf '%s' "$input" | jq -r '.tool_input.command // empty')
printf '%s' "$command" | grep -qE '^git (commit|push)' || exit 0
branch=$(git branch --show-current 2>/dev/null)
if [ "$branch" = "main" ] || [ "$branch" = "master" ]; then
  jq -n --arg b "$branch" '{hookSpecificOutput: {hookEventName: "PreToolUse", permissionDecision: "deny",
    permissionDecisionReason: ("on branch " + $b + ": create a feature branch first (git switch -c feature/NAME)")}}'
fi
exit 0
