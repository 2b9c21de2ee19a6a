"""One hook event in, Claude Code's hook output out: the same mapping the command bridge uses,
made on the daemon directly instead of over its socket."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec
from hookd_client import messages as m

from hookd.agents import decode, dialect, endpoints
from hookd.core import vocabulary

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon

_ids = itertools.count(1)


class Unavailable(Exception):
    """The daemon could not answer (stopping, or it refused the call): Claude Code's onFailure applies."""


class _Peer:
    """Stands for the agent as the owner of a session it attached: like the command bridge's connection,
    it goes away at once, so the session outlives it by the daemon's session grace."""

    __slots__ = ("__weakref__",)


# The agents that speak Claude Code's hook format, each under its own name and tool table.


async def _reply(daemon: Daemon, request: m.Request, peer: Any = None) -> m.Reply:
    result = daemon.handle(peer, request)
    return result if isinstance(result, m.Reply) else await result


def _raise_for(reply: m.Reply, event: str) -> None:
    if isinstance(reply, m.Error):
        raise Unavailable(f"hookd did not answer {event}: {reply.code}: {reply.message}")


async def call(daemon: Daemon, call: dialect.Call, timeout: float | None = None) -> dialect.Verdict | None:
    """Make ``call`` on the daemon. Raises Unavailable. ``timeout``: the seconds the agent waits for the answer."""
    if daemon.closing:
        raise Unavailable("hookd is stopping")
    if call.attach:
        peer = _Peer()
        try:
            _raise_for(await _reply(daemon, m.AttachSession(next(_ids), call.session or "", call.project), peer), call.event)
        finally:
            daemon.on_disconnect(peer)
    if call.dispose:
        # Observers of the session's last event run before its hooks go away.
        _raise_for(
            await _reply(daemon, m.Emit(next(_ids), call.point, call.payload, session=call.session, project=call.project)), call.event
        )
        reply = await _reply(daemon, m.DisposeSession(next(_ids), call.session or ""))
        if isinstance(reply, m.Error) and reply.code != m.ErrorCode.NOT_FOUND:
            _raise_for(reply, call.event)
        return None
    if call.decide:
        reply = await _reply(
            daemon, m.Decide(next(_ids), call.point, call.payload, session=call.session, project=call.project, timeout=timeout)
        )
        if isinstance(reply, m.Outcome):
            return dialect.verdict(reply)
        if not (isinstance(reply, m.Error) and reply.code == m.ErrorCode.WRONG_KIND):
            _raise_for(reply, call.event)
            raise Unavailable(f"hookd answered {call.event} with {type(reply).__name__}")
        # An observer point in the catalog: its observers still see the event.
    _raise_for(await _reply(daemon, m.Emit(next(_ids), call.point, call.payload, session=call.session, project=call.project)), call.event)
    return None


def encode(out: dict[str, Any] | None) -> bytes:
    return msgspec.json.encode(out) if out is not None else b""


async def answer(
    daemon: Daemon,
    event: str,
    body: bytes,
    environ: Mapping[str, str],
    agent: str = "claude-code",
    installed: frozenset[str] | None = None,
    exits: bool = False,
    timeout: float | None = None,
) -> tuple[bytes, bool]:
    """(response body, whether it is an exit code 2) for one hook input.
    Raises decode.Undecodable, decode.Unfit, dialect.BadInput, Unavailable.

    ``installed``: the events an earlier version's install named on its URL (``?events=``); accepted so
    that those installs keep working, and not used: every event is installed now.
    ``exits``: the caller is a command (the shim) that can exit 2; where Claude Code blocks an event
    only by exit code 2 (TeammateIdle, TaskCompleted), a deny is then answered as that exit, the
    body being the stderr Claude Code feeds back. An HTTP hook cannot exit 2: it is told in
    ``systemMessage`` that the deny could not block, never left to look like an allow."""
    hook_input = await decode.hook_input_async(body)  # as agents write it: lone surrogates, any nesting
    if isinstance(hook_input, dict) and not hook_input.get("hook_event_name"):
        hook_input["hook_event_name"] = event
    d = endpoints.DIALECTS[agent]
    # An agent whose dialect remembers the environment gets it looked up by the daemon, not carried.
    routed = dialect.route(d, hook_input, environ, carry_env=not d.remember_env)
    tool = hook_input.get("tool_name") if isinstance(hook_input, dict) else None
    verdict = dialect.for_agent(routed, await call(daemon, routed, timeout))
    code, stderr = dialect.exit_status(d, routed.event, verdict)
    if code == 2 and exits:
        return stderr.encode(), True
    out = dialect.render(d, routed.event, verdict, tool if isinstance(tool, str) else None)
    lines: list[str] = []
    if code == 2:
        title = vocabulary.AGENT_TITLES.get(agent, agent)
        lines.append(
            f"hookd: {stderr} (a hookd hook denied {routed.event}, which {title} blocks only when a command hook "
            "exits 2; this HTTP hook cannot: run `hookd bridge install` again, which installs the shim there)"
        )
    if lines:
        out = out or {}
        out["systemMessage"] = "\n".join([out["systemMessage"], *lines] if out.get("systemMessage") else lines)
    return encode(out), False
