#!/usr/bin/env python3
"""PreCompact: keep a copy of the transcript before it is compacted; stops a manual compaction while a lock is held."""

import json
import os
import shutil
import sys

data = json.load(sys.stdin)
if os.path.exists(".claude/no-compact"):
    print("compaction is locked by .claude/no-compact", file=sys.stderr)
    sys.exit(2)
transcript = data.get("transcript_path")
if transcript and os.path.exists(transcript):
    os.makedirs(".claude/backups", exist_ok=True)
    shutil.copy(transcript, os.path.join(".claude/backups", f"{data.get('trigger', 'auto')}-{os.path.basename(transcript)}"))
