#!/usr/bin/env python3
"""PreToolUse (Bash): refuse commands that have a better tool, with one line per rule on stderr and exit 2."""

import json
import re
import sys

RULES = (
    (r"^\s*grep\b(?!.*\|)", "use rg instead of grep: faster and honours .gitignore"),
    (r"^\s*find\s+\S+\s+-name\b", "use rg --files -g PATTERN instead of find -name"),
)

try:
    data = json.load(sys.stdin)
except ValueError as exc:
    print(f"bash_validator: input is not JSON: {exc}", file=sys.stderr)
    sys.exit(1)
if data.get("tool_name") != "Bash":
    sys.exit(0)
command = (data.get("tool_input") or {}).get("command") or ""
found = [message for pattern, message in RULES if re.search(pattern, command)]
for message in found:
    print(f"- {message}", file=sys.stderr)
sys.exit(2 if found else 0)
