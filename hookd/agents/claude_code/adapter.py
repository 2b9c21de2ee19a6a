"""`hookd bridge run-hook claude-code -- CMD...`: a Claude Code hook, run as a hookd command hook.

hookd starts this with its payload on stdin (and HOOKD_* in the environment);
it starts CMD with the Claude Code hook input, and prints the HookDecision that
CMD's answer means. `hookd import claude-code` writes hooks that use it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence

from hookd.agents.claude_code import hooks as claude_hooks


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hookd bridge run-hook claude-code",
        description="Run a hook written for Claude Code under hookd: translate hookd's payload to the Claude Code hook "
        "input, run CMD, and translate its output JSON or exit code 2 to a hookd decision.",
    )
    p.add_argument("--matcher", help="the settings matcher; the hook abstains on events it does not match")
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    return p


def main(argv: Sequence[str]) -> int:
    opts = parser().parse_args(argv)
    cmd = opts.cmd[1:] if opts.cmd[:1] == ["--"] else opts.cmd
    if not cmd:
        sys.stderr.write("hookd bridge run-hook: no command given (hookd bridge run-hook claude-code -- CMD ...)\n")
        return 2
    try:
        payload = json.loads(sys.stdin.buffer.read() or b"{}")
    except ValueError as exc:
        sys.stderr.write(f"hookd bridge run-hook: payload is not JSON: {exc}\n")
        return 2
    env = dict(os.environ)
    project = env.get("HOOKD_PROJECT_DIR", "")
    if project:
        env.setdefault("CLAUDE_PROJECT_DIR", project)
    data = claude_hooks.hook_input(payload, env.get("HOOKD_POINT", ""), env.get("HOOKD_SESSION_ID", ""), project, os.getcwd())
    event = str(data.get("hook_event_name", ""))
    if not claude_hooks.matches(opts.matcher, event, data):
        return 0
    argv_ = [a.replace("${CLAUDE_PROJECT_DIR}", env.get("CLAUDE_PROJECT_DIR", "")) for a in cmd]
    try:
        done = subprocess.run(argv_, input=json.dumps(data).encode(), capture_output=True, env=env, check=False)
    except OSError as exc:
        sys.stderr.write(f"hookd bridge run-hook: cannot run {argv_[0]!r}: {exc}\n")
        return 127
    stdout = done.stdout.decode("utf-8", "replace")
    stderr = done.stderr.decode("utf-8", "replace")
    try:
        answer = claude_hooks.decision(event, done.returncode, stdout, stderr)
    except claude_hooks.NotADecision as exc:
        sys.stderr.write(f"hookd bridge run-hook: {argv_[0]} {exc}\n")
        return 1
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
