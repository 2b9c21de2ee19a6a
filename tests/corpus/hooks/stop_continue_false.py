#!/usr/bin/env python3
"""SubagentStop / Stop: end the whole session (continue: false) when a budget file says it is spent."""

import json
import os
import sys

json.load(sys.stdin)
if os.path.exists(".claude/budget-spent"):
    print(json.dumps({"continue": False, "stopReason": "the session budget is spent", "systemMessage": "budget reached"}))
