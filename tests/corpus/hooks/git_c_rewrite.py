#!/usr/bin/env python3
"""PreToolUse (Bash): rewrite `git -C <this project> ...` to plain `git ...` (updatedInput), no decision."""

import json
import os
import shlex
import sys

data = json.load(sys.stdin)
command = (data.get("tool_input") or {}).get("command", "")
try:
    words = shlex.split(command)
except ValueError:
    sys.exit(0)
if len(words) > 3 and words[0] == "git" and words[1] == "-C" and os.path.realpath(words[2]) == os.path.realpath(os.getcwd()):
    rewritten = shlex.join(["git", *words[3:]])
    out = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecisionReason": "dropped a -C that names the working directory",
            "updatedInput": {**data["tool_input"], "command": rewritten},
        }
    }
    print(json.dumps(out))
