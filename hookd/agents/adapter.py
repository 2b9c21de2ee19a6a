"""`hookd bridge run-hook AGENT [--matcher M | --event E] -- CMD...`: a hook written for an agent, run as a
hookd command hook. One adapter for every agent whose hooks `hookd import` runs through it.

hookd starts this with its payload on stdin (and HOOKD_* in the environment); it starts CMD with the
agent's hook input, environment and working directory, and prints the HookDecision that CMD's answer
means. What differs from agent to agent is the agent's hook contract, pure functions in its ``hooks.py``
gathered in one HookFormat (``FORMAT``, hook_format.py); this module does the process work for all of them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from hookd.agents.hook_format import HookFormat, NotADecision

if TYPE_CHECKING:
    import argparse

# The agent -> the module holding its HookFormat as ``FORMAT`` (imported only for the agent asked for:
# this runs once per hook call).
FORMATS = {
    "claude-code": "hookd.agents.claude_code.hooks",
    "gemini": "hookd.agents.gemini.hooks",
    "copilot": "hookd.agents.copilot.hooks",
    "cline": "hookd.agents.cline.hooks",
}


def hook_format(agent: str) -> HookFormat:
    fmt: HookFormat = import_module(FORMATS[agent]).FORMAT
    return fmt


def parser(fmt: HookFormat) -> argparse.ArgumentParser:
    import argparse  # here: the agents' hook modules import this module for HookFormat, the daemon too

    p = argparse.ArgumentParser(prog=fmt.prog, description=fmt.description)
    p.add_argument(fmt.option, dest="option", default=None, help=fmt.option_help)
    p.add_argument("cmd", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    return p


def main(agent: str, argv: Sequence[str]) -> int:
    fmt = hook_format(agent)
    opts = parser(fmt).parse_args(argv)
    cmd = opts.cmd[1:] if opts.cmd[:1] == ["--"] else opts.cmd
    if not cmd:
        sys.stderr.write(f"{fmt.prog}: no command given ({fmt.usage or f'hookd bridge run-hook {agent} -- CMD ...'})\n")
        return 2
    try:
        payload = json.loads(sys.stdin.buffer.read() or b"{}")
    except ValueError as exc:
        sys.stderr.write(f"{fmt.prog}: payload is not JSON: {exc}\n")
        return 2
    if not isinstance(payload, dict):
        sys.stderr.write(f"{fmt.prog}: payload is not a JSON object\n")
        return 2
    data = fmt.hook_input(payload, opts.option, os.environ, os.getcwd())
    event = fmt.event(opts.option, os.environ, data)
    if not fmt.selected(opts.option, event, data):
        return 0
    import subprocess

    env = fmt.environment(os.environ, payload, data)
    started = fmt.argv(cmd, env)
    try:
        done = subprocess.run(started, input=json.dumps(data).encode(), capture_output=True, env=env, cwd=fmt.cwd(data), check=False)
    except OSError as exc:
        sys.stderr.write(f"{fmt.prog}: cannot run {started[0]!r}: {exc}\n")
        return 127
    if fmt.relays_stderr:
        sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    try:
        answer = fmt.answer(event, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"), payload)
    except NotADecision as exc:
        sys.stderr.write(f"{fmt.prog}: {started[0]} {exc}\n")
        return 1
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
