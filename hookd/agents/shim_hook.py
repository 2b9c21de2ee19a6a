"""A hook of hookd's own that runs the compiled shim: the one command line every shim-only agent's install
writes (Copilot CLI's hook file, Cline's hook files), each agent giving its name, its tool event and how
it writes a deny.

The line runs the shim for the event, giving up a margin before the agent's own timeout (the agent lets a
tool run when its hook times out). With --fail-closed, the tool event's hook also denies by itself when the
shim cannot be run: the shim exits non-zero only then (or when its answer could not be written), so that
no path lets a tool call through unasked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import NamedTuple

from hookd.agents import deadlines


class Options(NamedTuple):
    shim: str
    port: int
    token_file: str
    timeout: int  # seconds the agent waits for the hook
    fail_closed: bool = False


def command(options: Options, agent: str, event: str, tool_event: str, deny: Callable[[str, str], str]) -> str:
    """The shell line for ``event``; ``deny(event, reason)``: the agent's deny, as the text its hook prints."""
    words = [shlex.quote(options.shim), event, str(options.port), shlex.quote(options.token_file), f"--agent {agent}"]
    words.append(f"--timeout {deadlines.text(deadlines.deadline(options.timeout))}")
    if options.fail_closed:
        words.append("--fail-closed")
    line = " ".join(words)
    if options.fail_closed and event == tool_event:
        said = deny(event, f"the hookd shim {options.shim} cannot be run; the hookd bridge is installed fail-closed")
        return f"{line} || printf '%s\\n' {shlex.quote(said)}"
    return f"exec {line}"
