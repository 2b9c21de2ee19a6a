"""`hookd bridge run-hook AGENT [--matcher M | --event E] -- CMD...`: a hook written for an agent, run as a
hookd command hook. One adapter for every agent whose hooks `hookd import` runs through it.

hookd starts this with its payload on stdin (and HOOKD_* in the environment); it starts CMD with the
agent's hook input, environment and working directory, and prints the HookDecision that CMD's answer
means. What differs from agent to agent is the agent's hook contract, pure functions in its ``hooks.py``
gathered in one :class:`HookFormat` (``FORMAT``); this module does the process work for all of them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import argparse

# The agent -> the module holding its HookFormat as ``FORMAT`` (imported only for the agent asked for:
# this runs once per hook call).
FORMATS = {"claude-code": "hookd.agents.claude_code.hooks", "gemini": "hookd.agents.gemini.hooks"}


class NotADecision(Exception):
    """The hook failed the way the agent reports as a non-blocking error: no decision, exit 1."""


class HookFormat(NamedTuple):
    """One agent's hook contract, from the hook's side."""

    prog: str  # how errors name this command
    description: str
    option: str  # the one option the imported hook is written with: "--matcher" or "--event"
    option_help: str
    # (hookd's payload, the option's value, hookd's environment, the working directory) -> the agent's hook input
    hook_input: Callable[[Mapping[str, Any], str | None, Mapping[str, str], str], dict[str, Any]]
    # (hookd's environment, the payload, the hook input) -> the environment the agent gives its hook
    environment: Callable[[Mapping[str, str], Mapping[str, Any], Mapping[str, Any]], dict[str, str]]
    # (the option's value, the event, the hook input) -> whether the hook runs (it abstains otherwise)
    selected: Callable[[str | None, str, Mapping[str, Any]], bool]
    # (CMD, its environment) -> the argv started
    argv: Callable[[list[str], Mapping[str, str]], list[str]]
    # the hook input -> the working directory the agent starts its hook in (None: this one)
    cwd: Callable[[Mapping[str, Any]], str | None]
    # (event, exit code, stdout, stderr, the payload) -> the HookDecision as JSON data (None: abstain). Raises NotADecision.
    answer: Callable[[str, int, str, str, Mapping[str, Any]], dict[str, Any] | None]


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
        sys.stderr.write(f"{fmt.prog}: no command given (hookd bridge run-hook {agent} -- CMD ...)\n")
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
    event = str(data.get("hook_event_name", ""))
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
    try:
        answer = fmt.answer(event, done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"), payload)
    except NotADecision as exc:
        sys.stderr.write(f"{fmt.prog}: {started[0]} {exc}\n")
        return 1
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return 0
