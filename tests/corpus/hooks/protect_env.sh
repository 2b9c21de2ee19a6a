#!/usr/bin/env bash
# PreToolUse (Edit|Write): no writes to .env files; templates (.env.example) stay editable.
set -u
input=$(cat)
path=$(printf '%s' "$input" | jq -r '.tool_input.file_path // empty')
[ -z "$path" ] && exit 0
name=$(basename "$path")
case "$name" in
  .env.example|.env.sample) exit 0 ;;
  .env|.env.*)
    echo "Refusing to write $name: it holds secrets; edit .env.example instead" >&2
    exit 2 ;;
esac
exit 0
