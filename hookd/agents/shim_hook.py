"""A hook of hookd's own that runs the compiled shim: the one command line every shim-only agent's install
writes (Copilot CLI's hook file, Cline's hook files), each agent giving its dialect (its name, its tool event
and its deny) and the JSON encoder its file was first written with.

The line runs the shim for the event, giving up a margin before the agent's own timeout (the agent lets a
tool run when its hook times out). With --fail-closed, the tool event's hook also denies by itself when the
shim cannot be run: the shim exits non-zero only then (or when its answer could not be written), so that
no path lets a tool call through unasked.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from typing import Any, NamedTuple

from hookd.agents import deadlines, dialect


class InstallError(Exception):
    """Something the user must fix; the message says what."""


class Options(NamedTuple):
    shim: str
    port: int
    token_file: str
    timeout: int  # seconds the agent waits for the hook
    fail_closed: bool = False


def command(options: Options, d: dialect.Dialect, event: str, encode: Callable[[Any], str]) -> str:
    """The shell line for ``event`` of the agent ``d``; ``encode``: the JSON text its hook prints for the agent's deny."""
    words = [shlex.quote(options.shim), event, str(options.port), shlex.quote(options.token_file), f"--agent {d.agent}"]
    words.append(f"--timeout {deadlines.text(deadlines.deadline(options.timeout))}")
    if options.fail_closed:
        words.append("--fail-closed")
    line = " ".join(words)
    why = f"the hookd shim {options.shim} cannot be run; the hookd bridge is installed fail-closed"
    deny = dialect.fail_closed(d, event, why) if options.fail_closed else None
    if deny is not None:
        said = encode(deny)
        return f"{line} || printf '%s\\n' {shlex.quote(said)}"
    return f"exec {line}"
