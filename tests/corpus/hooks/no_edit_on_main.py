#!/usr/bin/env python3
"""PreToolUse (Edit|Write): no file edits while the project is on its main branch (exit 2)."""

import json
import subprocess
import sys

data = json.load(sys.stdin)
if data.get("tool_name") not in ("Edit", "Write", "MultiEdit"):
    sys.exit(0)
try:
    branch = subprocess.run(
        ["git", "rev-parse", "--abbrev-ref", "HEAD"], capture_output=True, text=True, check=True, timeout=10
    ).stdout.strip()
except (subprocess.CalledProcessError, FileNotFoundError, subprocess.TimeoutExpired):
    sys.exit(0)  # not a repository: nothing to protect
if branch in ("main", "master"):
    print(f"Edits on {branch} are not allowed; switch to a feature branch first.", file=sys.stderr)
    sys.exit(2)
