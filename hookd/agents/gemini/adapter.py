"""`hookd bridge run-hook gemini --event EVENT -- CMD...`: a Gemini CLI hook, run as a hookd command hook.

hookd starts this with its payload on stdin (and HOOKD_* in the environment); it starts CMD with
Gemini CLI's hook input and environment, and prints the HookDecision that CMD's answer means.
`hookd import gemini` writes hooks that use it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence

from hookd.agents.gemini import hooks


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hookd bridge run-hook gemini",
        description="Run a hook written for Gemini CLI under hookd: hookd's payload becomes Gemini CLI's hook input "
        "on CMD's stdin, and CMD's output JSON, text or exit code becomes a hookd decision.",
    )
    p.add_argument("--event", default="", help="the Gemini CLI event the hook was configured for (default: the point's)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    return p


def main(argv: Sequence[str]) -> int:
    opts = parser().parse_args(argv)
    cmd = opts.cmd[1:] if opts.cmd[:1] == ["--"] else opts.cmd
    if not cmd:
        sys.stderr.write("hookd bridge run-hook gemini: no command given (hookd bridge run-hook gemini -- CMD ...)\n")
        return 2
    try:
        payload = json.loads(sys.stdin.buffer.read() or b"{}")
    except ValueError as exc:
        sys.stderr.write(f"hookd bridge run-hook gemini: payload is not JSON: {exc}\n")
        return 2
    if not isinstance(payload, dict):
        sys.stderr.write("hookd bridge run-hook gemini: payload is not a JSON object\n")
        return 2
    point, session, project = (
        os.environ.get("HOOKD_POINT", ""),
        os.environ.get("HOOKD_SESSION_ID", ""),
        os.environ.get("HOOKD_PROJECT_DIR", ""),
    )
    data = hooks.hook_input(payload, point, opts.event, session, project, os.getcwd())
    env = hooks.environment(os.environ, payload, data)
    cwd = data.get("cwd")
    where = cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None
    try:
        done = subprocess.run(cmd, input=json.dumps(data).encode(), capture_output=True, env=env, cwd=where, check=False)
    except OSError as exc:
        sys.stderr.write(f"hookd bridge run-hook gemini: cannot run {cmd[0]!r}: {exc}\n")
        return 127
    args = payload.get("args")
    answer = hooks.answer(
        str(data["hook_event_name"]),
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        args if isinstance(args, dict) else None,
    )
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
