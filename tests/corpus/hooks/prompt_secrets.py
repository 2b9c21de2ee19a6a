#!/usr/bin/env python3
"""UserPromptSubmit: block a prompt that carries a secret; otherwise add a line of context (plain stdout)."""

import json
import re
import sys

PATTERNS = (r"sk-[A-Za-z0-9]{20,}", r"ghp_[A-Za-z0-9]{36}", r"(?i)password\s*[:=]\s*\S{8,}")
data = json.load(sys.stdin)
prompt = data.get("prompt", "")
for pattern in PATTERNS:
    if re.search(pattern, prompt):
        reason = "Your prompt seems to contain a secret; remove it and use an environment variable."
        print(json.dumps({"decision": "block", "reason": reason}))
        sys.exit(0)
print(f"Prompt length: {len(prompt)} characters")
