#!/usr/bin/env python3
"""Stop: keep Claude working while the test suite is marked failing; never loop once a stop hook is active."""

import json
import os
import sys

data = json.load(sys.stdin)
if data.get("stop_hook_active"):
    sys.exit(0)
marker = os.path.join(os.environ.get("CLAUDE_PROJECT_DIR", "."), ".claude", "tests-failing")
if os.path.exists(marker):
    with open(marker, encoding="utf-8") as f:
        failing = f.read().strip()
    print(json.dumps({"decision": "block", "reason": f"Tests are failing ({failing}); fix them before stopping."}))
