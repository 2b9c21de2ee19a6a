"""`hookd bridge run-hook copilot --event EVENT -- CMD...`: a Copilot CLI hook, run as a hookd command hook.

hookd starts this with its payload on stdin (and HOOKD_* in the environment); it starts CMD with Copilot's
hook input and environment, in the input's working directory, and prints the HookDecision that CMD's answer
means (hooks.py). `hookd import copilot` writes hooks that use it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence

from hookd.agents.copilot import hooks

USAGE = "hookd bridge run-hook copilot --event EVENT -- CMD ..."


def split(argv: Sequence[str]) -> tuple[str, list[str]] | None:
    """(event, command) of ``--event EVENT -- CMD...``; None when it does not read so."""
    args = list(argv)
    event = ""
    if args[:1] == ["--event"] and len(args) > 1:
        event, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    return (event, args) if args else None


def main(argv: Sequence[str]) -> int:
    parsed = split(argv)
    if parsed is None:
        sys.stderr.write(f"hookd bridge run-hook copilot: no command given ({USAGE})\n")
        return 2
    event, cmd = parsed
    try:
        payload = json.loads(sys.stdin.buffer.read() or b"{}")
    except ValueError as exc:
        sys.stderr.write(f"hookd bridge run-hook copilot: payload is not JSON: {exc}\n")
        return 2
    if not isinstance(payload, dict):
        sys.stderr.write("hookd bridge run-hook copilot: payload is not a JSON object\n")
        return 2
    point, session, project = (os.environ.get(k, "") for k in ("HOOKD_POINT", "HOOKD_SESSION_ID", "HOOKD_PROJECT_DIR"))
    data = hooks.hook_input(payload, point, event, session, project or os.getcwd())
    cwd = data.get("cwd")
    try:
        done = subprocess.run(
            cmd,
            input=json.dumps(data).encode(),
            capture_output=True,
            env=hooks.environment(os.environ, payload),
            cwd=cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None,
            check=False,
        )
    except OSError as exc:
        sys.stderr.write(f"hookd bridge run-hook copilot: cannot run {cmd[0]!r}: {exc}\n")
        return 127
    sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    answer = hooks.answer(event or hooks.POINT_EVENTS.get(point, ""), done.returncode, done.stdout.decode("utf-8", "replace"))
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
