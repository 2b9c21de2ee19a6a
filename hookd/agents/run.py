"""`hookd bridge AGENT`: one agent hook event in, one hookd call, the agent's answer out.

An agent with command hooks (Claude Code, Codex, Gemini CLI, Qwen Code, Factory Droid) starts this once
per event, given its dialect (hookd/agents/dialect.py), so it imports only the standard library and the
blocking client. It never hangs the agent: one deadline covers reading stdin, connecting and the call;
when it passes, or hookd is down, the agent proceeds (or, with --fail-closed, a tool call is denied).
"""

from __future__ import annotations

import os
import signal
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

from hookd.agents import dialect

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# Claude Code waits 600 s for a hook by default: the bridge never gives up before the hooks behind it would.
DEFAULT_TIMEOUT = 600.0
SESSION_END_TIMEOUT = dialect.SESSION_END_TIMEOUT


class Unavailable(Exception):
    """hookd could not answer: not running, too slow, or refused the call."""


class _Deadline(BaseException):
    # BaseException so no `except Exception` on the way up swallows it.
    pass


class Options(NamedTuple):
    timeout: float = DEFAULT_TIMEOUT
    fail_closed: bool = False
    socket: str | None = None
    # The event the agent runs this hook on, as its install wrote it: when the input cannot be read
    # at all, the bridge still knows whether the event decides (and then denies it).
    event: str | None = None


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"give up on hookd after this long and let the agent proceed (default {DEFAULT_TIMEOUT:g}; "
        f"keep it below the agent's hook timeout; SessionEnd uses at most {SESSION_END_TIMEOUT:g})",
    )
    parser.add_argument(
        "--fail-closed",
        action="store_true",
        help="when hookd is down or too slow, deny PreToolUse instead of letting the tool run",
    )
    parser.add_argument("--socket", metavar="PATH", help="daemon socket (default: see `hookd --help`)")
    parser.add_argument(
        "--event",
        metavar="EVENT",
        help="the agent's event this hook runs on (install writes it): an input that cannot be read is denied on a deciding event",
    )


def parser(agent: str) -> argparse.ArgumentParser:
    import argparse

    from hookd.core.vocabulary import AGENT_TITLES

    title = AGENT_TITLES.get(agent, agent)
    p = argparse.ArgumentParser(
        prog=f"hookd bridge {agent}",
        description=f"Read a {title} hook input on stdin, run the matching hookd point, and print {title}'s "
        f"hook output. Meant to be called by the agent (see `hookd bridge install {agent}`).",
    )
    add_options(p)
    return p


def parse(argv: Sequence[str]) -> Options | None:
    """The agent's usual arguments, read without argparse (~4 ms of imports); None defers to argparse."""
    values: dict[str, Any] = {}
    args = list(argv)
    while args:
        arg = args.pop(0)
        name, eq, inline = arg.partition("=")
        if arg == "--fail-closed":
            values["fail_closed"] = True
        elif name in ("--timeout", "--socket", "--event") and (eq or args):
            value = inline if eq else args.pop(0)
            if name in ("--socket", "--event"):
                values[name[2:]] = value
                continue
            try:
                values["timeout"] = float(value)
            except ValueError:
                return None
        else:
            return None  # --help, typos, anything else: argparse explains
    return Options(**values)


def options(argv: Sequence[str], agent: str) -> Options:
    """The bridge's options: the agent's usual arguments at once, anything else (--help, a typo) through argparse."""
    opts = parse(argv)
    if opts is None:
        ns = parser(agent).parse_args(argv)
        opts = Options(ns.timeout, ns.fail_closed, ns.socket, ns.event)
    return opts


def main(argv: Sequence[str], d: dialect.Dialect) -> int:
    """`hookd bridge AGENT`: one event of the agent whose dialect is ``d``."""
    return run(options(argv, d.agent), d)


def _alarm(signum: int, frame: Any) -> None:
    raise _Deadline


not_run_line = dialect.not_run_line
verdict_of = dialect.verdict


def _unsendable(client: Any, call: dialect.Call, what: str) -> dialect.Verdict | None:
    """A call the daemon cannot receive (``what`` says why). Its guards cannot see it, so it must not pass
    for an allow: denied when a decision hook would run, let through only when none is configured."""
    sys.stderr.write(f"hookd bridge: {what}; it was not sent, so its observers did not see it\n")
    if not call.decide:
        return None
    chain = client.explain(call.point, session=call.session, project=call.project)
    guards = [e.name for e in chain.decision_hooks if e.enabled and e.trusted]
    untrusted = [e.name for e in chain.decision_hooks if e.enabled and not e.trusted]
    skipped = tuple(not_run_line(name, "untrusted", "`hookd hooks` says why") for name in untrusted)
    if not guards:
        return dialect.Verdict(not_run=skipped) if skipped else None
    named = ", ".join(repr(g) for g in guards)
    reason = f"hookd: {what}; the guard{'s' if len(guards) != 1 else ''} {named} could not see it, so it is denied"
    return dialect.Verdict("deny", reason, not_run=(*skipped, *(not_run_line(g, "too_large", what) for g in guards)))


def unreadable(raw: bytes, exc: Exception, d: dialect.Dialect, installed_for: str | None = None) -> int:
    """A hook input the bridge cannot read or hand to hookd (``exc`` says why). On an event that decides,
    found in the input however broken (else the event the install named, ``installed_for``), it is
    denied in the agent's format: its guards cannot see it. Else the agent proceeds on exit 1, a
    non-blocking error."""
    import re

    import msgspec

    sys.stderr.write(f"hookd bridge: bad hook input: {exc}\n")
    top = getattr(exc, "value", None)
    event = top.get("hook_event_name") if isinstance(top, dict) else None
    if not isinstance(event, str):
        found = re.search(rb'"hook_event_name"\s*:\s*"([A-Za-z][A-Za-z0-9]{0,63})"', raw)
        event = found.group(1).decode() if found else installed_for
    if event is None or not d.routes.get(event, ("", False))[1]:
        return 1
    reason = f"hookd: the {event} input cannot be handed to hookd ({exc}); no guard could see it, so it is denied"
    verdict = dialect.Verdict("deny", reason)
    if dialect.exit_status(d, event, verdict)[0] == 2:
        sys.stderr.write(reason + "\n")  # the agent blocks this event only on exit code 2
        return 2
    out = dialect.render(d, event, verdict) or dialect.render(d, event, dialect.Verdict(not_run=(reason,)))
    sys.stdout.buffer.write(msgspec.json.encode(out) + b"\n")
    sys.stdout.flush()
    return 0


def ask(call: dialect.Call, socket_path: str | None, timeout: float, agent: str) -> dialect.Verdict | None:
    """Make ``call`` on the daemon. Raises Unavailable."""
    import msgspec
    from hookd_client.client import Client
    from hookd_client.errors import DaemonNotRunning, HookdError
    from hookd_client.framing import DEFAULT_MAX_FRAME
    from hookd_client.messages import Decide, Emit

    try:
        with Client(socket_path, name=f"hookd-bridge/{agent}", timeout=timeout) as client:
            if call.attach:
                client.attach_session(call.session, project=call.project)
            where = {"session": call.session, "project": call.project}
            # Measured, not sent: a frame over the daemon's limit closes the connection unanswered.
            kind = Decide if call.decide else Emit
            limit = client.welcome.limits.max_frame if client.welcome is not None else DEFAULT_MAX_FRAME
            try:
                size = len(msgspec.msgpack.encode(kind(2**63 - 1, call.point, call.payload, call.session, call.project)))
                what = f"the {call.event} input is {size} bytes, over hookd's frame limit of {limit} bytes"
            except (OverflowError, TypeError, ValueError) as exc:  # e.g. a JSON integer over 64 bits
                size, what = limit + 1, f"the {call.event} input cannot be sent to hookd ({exc})"
            if call.dispose:
                # Observers of the session's last event run before its hooks go away.
                if size <= limit:
                    client.emit(call.point, call.payload, **where)
                try:
                    client.dispose_session(call.session)
                except HookdError as exc:
                    if exc.code != "not_found":
                        raise
                return None
            if size > limit:
                return _unsendable(client, call, what)
            if call.decide:
                try:
                    # What is left of the bridge's own deadline: hookd ends every wait of the call before it.
                    left = signal.getitimer(signal.ITIMER_REAL)[0] or timeout
                    return verdict_of(client.decide(call.point, call.payload, **where, timeout=left))
                except HookdError as exc:
                    if exc.code != "wrong_kind":
                        raise
                    # An observer point in the catalog: its observers still see the event.
            client.emit(call.point, call.payload, **where)
            return None
    except HookdError as exc:
        if isinstance(exc, DaemonNotRunning):
            raise Unavailable(f"hookd is not running (nothing listens on {exc.path})") from None
        raise Unavailable(f"hookd did not answer {call.event}: {exc}") from None
    except OSError as exc:
        raise Unavailable(f"hookd is unreachable: {exc}") from None


def run(opts: Options | argparse.Namespace, d: dialect.Dialect) -> int:
    """One event of the agent whose dialect is ``d``."""
    import msgspec  # loaded by the client anyway; its JSON codec spares importing json

    from hookd.core.termsafe import one_line

    event: str | None = None
    out: dict[str, Any] | None = None
    timeout = max(opts.timeout, 0.01)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        try:
            raw = sys.stdin.buffer.read()
            from hookd.agents import decode

            try:
                data = decode.hook_input(raw)  # read as agents write it (lone surrogates, any nesting)
                call = dialect.route(d, data, os.environ)
            except (decode.Undecodable, decode.Unfit, dialect.BadInput) as exc:
                return unreadable(raw, exc, d, getattr(opts, "event", None))
            event = call.event
            if call.event == d.session_end and d.session_end_timeout is not None and timeout > d.session_end_timeout:
                timeout = d.session_end_timeout
                signal.setitimer(signal.ITIMER_REAL, timeout)
            verdict = dialect.for_agent(call, ask(call, opts.socket, timeout, d.agent))
            for error in verdict.errors if verdict else ():
                sys.stderr.write(f"hookd bridge: hook failed: {one_line(error)}\n")
            for line in verdict.not_run if verdict else ():
                sys.stderr.write(line + "\n")
            code, feedback = dialect.exit_status(d, call.event, verdict)
            if code == 2:
                # The agent blocks this event only by exit code 2, and feeds stderr back.
                sys.stderr.write(feedback + "\n")
                return 2
            tool = data.get("tool_name")  # the agent's own name for the tool (Codex tells an MCP tool by it)
            out = dialect.render(d, call.event, verdict, tool if isinstance(tool, str) else None)
        except _Deadline:
            if event is None:
                raise Unavailable(f"no complete hook input on stdin within {timeout:g} s") from None
            raise Unavailable(f"hookd did not answer {event} within {timeout:g} s") from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    except Unavailable as exc:
        # No input in time: the event is the one install named (--event), so a tool call it guards is still denied.
        event = event or getattr(opts, "event", None)
        out = dialect.fail_closed(d, event, f"{exc}; the hookd bridge runs with --fail-closed") if opts.fail_closed else None
        policy = "denying the tool call (--fail-closed)" if out is not None else "the agent proceeds"
        sys.stderr.write(f"hookd bridge: {exc}; {policy}\n")
    if out is not None:
        sys.stdout.buffer.write(msgspec.json.encode(out) + b"\n")
        sys.stdout.flush()
    return 0
