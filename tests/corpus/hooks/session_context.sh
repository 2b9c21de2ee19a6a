#!/usr/bin/env bash
# SessionStart: plain text on stdout, which Claude Code adds to the context.
branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo none)
changed=$(git status --porcelain 2>/dev/null | wc -l | tr -d ' ')
echo "Branch: $branch"
echo "Uncommitted files: $changed"
[ -f CLAUDE.md ] && echo "Project notes: CLAUDE.md present"
exit 0
