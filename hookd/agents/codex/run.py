"""`hookd bridge codex`: one Codex hook event in, one hookd call, Codex's answer out.

Codex starts this once per event (it has command hooks only), so, like the Claude Code bridge, it
imports only the standard library and the blocking client, shares that bridge's deadline and its
call (``hookd.bridges.run.ask``), and never hangs the agent: when hookd is down or too slow, Codex
proceeds (or, with --fail-closed, a tool call is denied).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Any

from hookd.agents import run as common
from hookd.agents.claude_code.protocol import for_agent
from hookd.agents.codex import protocol as mapping

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence


def main(argv: Sequence[str], _proto: Any = mapping) -> int:
    """`hookd bridge codex`: one Codex event (the protocol is always Codex's; ``_proto`` keeps run.main's form)."""
    return run(common.options(argv, mapping.AGENT))


def answer(raw: bytes, environ: dict[str, str], socket_path: str | None, timeout: float) -> tuple[str | None, dict[str, Any] | None]:
    """(event, Codex's output) for one raw hook input. Raises mapping.BadInput, ValueError, common.Unavailable."""
    from hookd.agents import decode
    from hookd.core.termsafe import one_line

    data = decode.hook_input(raw)  # read as agents write it; raises decode.Undecodable, decode.Unfit
    call = mapping.route(data, environ)
    verdict = for_agent(call, common.ask(call, socket_path, timeout, mapping.AGENT))
    for error in verdict.errors if verdict else ():
        sys.stderr.write(f"hookd bridge: hook failed: {one_line(error)}\n")
    for line in verdict.not_run if verdict else ():
        sys.stderr.write(line + "\n")
    tool = data.get("tool_name")
    return call.event, mapping.render(call.event, verdict, tool if isinstance(tool, str) else None)


def _event_of(raw: bytes) -> str | None:
    from hookd.agents import decode

    try:
        data = decode.hook_input(raw)  # as the call will read it: lone surrogates, any nesting
    except (decode.Undecodable, decode.Unfit):
        return None
    event = data.get("hook_event_name") if isinstance(data, dict) else None
    return event if isinstance(event, str) else None


def run(opts: common.Options | argparse.Namespace, _proto: Any = mapping) -> int:
    import msgspec

    from hookd.agents import decode

    raw: bytes | None = None
    event: str | None = None
    out: dict[str, Any] | None = None
    timeout = max(opts.timeout, 0.01)
    previous = signal.signal(signal.SIGALRM, common._alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        try:
            raw = sys.stdin.buffer.read()
            event = _event_of(raw)
            try:
                event, out = answer(raw, dict(os.environ), opts.socket, timeout)
            except (mapping.BadInput, decode.Undecodable, decode.Unfit) as exc:
                return common.unreadable(raw, exc, mapping, getattr(opts, "event", None))
        except common._Deadline:
            if raw is None:
                raise common.Unavailable(f"no complete hook input on stdin within {timeout:g} s") from None
            raise common.Unavailable(f"hookd did not answer {event} within {timeout:g} s") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    except common.Unavailable as exc:
        policy = "denying the tool call (--fail-closed)" if opts.fail_closed and event == "PreToolUse" else "the agent proceeds"
        sys.stderr.write(f"hookd bridge: {exc}; {policy}\n")
        out = mapping.fail_closed(event, f"{exc}; the hookd bridge runs with --fail-closed") if opts.fail_closed else None
    if out is not None:
        sys.stdout.buffer.write(msgspec.json.encode(out) + b"\n")
        sys.stdout.flush()
    return 0
