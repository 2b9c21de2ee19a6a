#!/usr/bin/env bash
# PostToolUse (Write): lint shell scripts with a linter that must be installed; fails (non-blocking) without it.
input=$(cat)
file=$(printf '%s' "$input" | jq -r '.tool_input.file_path // empty')
case "$file" in *.sh) ;; *) exit 0 ;; esac
shell-lint-not-installed "$file"
