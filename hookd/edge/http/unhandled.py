"""What the endpoint answers for a request it cannot handle: the one place that rule is made.

Claude Code treats any answer but a 2xx as a non-blocking error and goes on with the tool, so on a
deciding event (``ROUTES[event][1]`` in the agent's mapping) whatever the endpoint cannot decode or
answer (a body it cannot read, too deep or too large to hand on, an internal error, the daemon
stopping, a body that never arrives) is a ``200`` whose output, in the agent's own format, DENIES
the event, with a reason that names the guards that could not run. Only when no decision hook is
configured for the call's point does it go ahead, with a ``systemMessage`` saying what happened.
Events that decide nothing keep the error the caller gives (``otherwise``).

The guards are what ``hookd explain`` lists for the call's point, session and project: enabled,
trusted decision hooks. When the input could not be read, its session and project are unknown, so
every such hook on that point, wherever configured, counts. When they cannot be looked up at all
(a project whose hook files are not loaded, an error on the way), the event is denied all the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
import structlog

from hookd.agents import dialect, endpoints

if TYPE_CHECKING:
    from hookd.daemon.daemon import Daemon
    from hookd.edge.http.checks import Accepted

log = structlog.get_logger("hookd.httphooks")


class Reply(NamedTuple):
    status: int
    body: bytes
    exit2: bool = False  # the body is the stderr of an exit code 2 (the shim's X-Hookd-Exits)


class Guards(NamedTuple):
    names: list[str]  # enabled, trusted decision hooks the call would run
    untrusted: list[str]  # enabled decision hooks that would not run anyway (untrusted)
    unsure: str | None = None  # why the list may be incomplete (then the event is denied anyway)


def dialect_of(agent: str) -> dialect.Dialect:
    return endpoints.DIALECTS.get(agent) or endpoints.DIALECTS[endpoints.DEFAULT]


def route_of(agent: str, event: str) -> tuple[str, bool]:
    """(hookd point, whether the event decides) as the agent's dialect routes it."""
    d = dialect_of(agent)
    return d.routes.get(event, (d.unmapped_prefix + event, False))


def notice(agent: str, event: str, why: str, reason: str) -> Reply:
    """A ``200`` that lets the event go on and tells the user its hooks did not see it."""
    line = dialect.not_run_line("every hookd hook", reason, why)
    return Reply(200, msgspec.json.encode(dialect.render(dialect_of(agent), event, dialect.Verdict(not_run=(line,))) or {}))


async def reply(daemon: Daemon, accepted: Accepted, why: str, reason: str, hook_input: Any, otherwise: Reply) -> Reply:
    """The answer to a request the endpoint cannot handle (``why``, for the user; ``reason``, a short
    code): a deny on a deciding event (a go-ahead with a notice when no guard is configured), else
    ``otherwise``. ``hook_input`` is what could be read of the input (its top level), or None."""
    point, decides = route_of(accepted.agent, accepted.event)
    if not decides:
        return otherwise
    session, project = where(accepted.agent, hook_input, accepted.environ)
    if project is not None and not daemon.closing:
        try:
            await daemon.files.settle(project)  # bounded: the project's files, loaded for the lookup
        except Exception:  # the lookup below says the list is not sure
            log.exception("could not load the project's hook files to name its guards", project=project)
    return decided(daemon, accepted, why, reason, hook_input, point, session, project)


def reply_now(daemon: Daemon, accepted: Accepted, why: str, reason: str, hook_input: Any, otherwise: Reply) -> Reply:
    """:func:`reply` without waiting for anything (the request's task is cancelled, or a deadline passed)."""
    point, decides = route_of(accepted.agent, accepted.event)
    if not decides:
        return otherwise
    session, project = where(accepted.agent, hook_input, accepted.environ)
    return decided(daemon, accepted, why, reason, hook_input, point, session, project)


def where(agent: str, hook_input: Any, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(session, project) as the agent's dialect would find them (its project variable first, then the input's cwd)."""
    fields = hook_input if isinstance(hook_input, dict) else {}
    session = fields.get("session_id")
    variable = dialect_of(agent).project_env
    project = (environ.get(variable) if variable else None) or fields.get("cwd")
    return (
        session if isinstance(session, str) and session else None,
        project if isinstance(project, str) and project.startswith("/") else None,
    )


def guards(daemon: Daemon, point: str, session: str | None, project: str | None, known: bool) -> Guards:
    """The decision hooks the call would run. ``known``: the input was read, so its session and
    project are the call's; otherwise every decision hook on ``point`` counts, wherever configured."""
    registry = daemon.registry
    try:
        if known:
            resolved = registry.project_for(session, project)
            entries = registry.explain(point, session, resolved)[0]
            unsure = f"the hook files of {resolved} are not loaded" if resolved is not None and not registry.is_loaded(resolved) else None
        else:
            unsure = None
            entries = []
            for hook in registry.all_hooks():
                if hook.point == point and hook.type == "decision":
                    context = hook.owner if hook.scope == "project" else None
                    entries.append(hook.entry(registry.is_enabled(hook, context), registry.verdict(hook).trusted))
    except Exception:  # a lookup that fails names no guard, and so denies
        log.exception("could not look up the guards of a call the endpoint cannot handle", point=point)
        return Guards([], [], "hookd could not look up its guards")
    live = [e for e in entries if e.enabled and not e.shadow]
    trusted = list(dict.fromkeys(e.name for e in live if e.trusted))
    return Guards(trusted, list(dict.fromkeys(e.name for e in live if not e.trusted)), unsure)


def decided(
    daemon: Daemon, accepted: Accepted, why: str, reason: str, hook_input: Any, point: str, session: str | None, project: str | None
) -> Reply:
    event, agent = accepted.event, accepted.agent
    found = guards(daemon, point, session, project, isinstance(hook_input, dict))
    skipped = tuple(dialect.not_run_line(name, "untrusted", "`hookd hooks` says why") for name in found.untrusted)
    if found.names:
        named = ", ".join(repr(name) for name in found.names)
        plural = "s" if len(found.names) != 1 else ""
        text = f"hookd: {why}; the guard{plural} {named} could not run, so it is denied"
        verdict = dialect.Verdict("deny", text, not_run=(*skipped, *(dialect.not_run_line(name, reason, why) for name in found.names)))
    elif found.unsure is not None:
        text = f"hookd: {why}; {found.unsure}, so which guards would run is not known, and it is denied"
        verdict = dialect.Verdict("deny", text, not_run=(*skipped, text))
    else:
        text = f"hookd: {why}; no hookd guard is configured for {event}, so it goes ahead"
        log.warning("HTTP hook answered without its hooks", hook_event=event, why=why)
        return Reply(200, msgspec.json.encode(dialect.render(dialect_of(agent), event, dialect.Verdict(not_run=(*skipped, text))) or {}))
    log.warning("HTTP hook denied: hookd could not handle it", hook_event=event, why=why, guards=found.names, unsure=found.unsure)
    d = dialect_of(agent)
    code, stderr = dialect.exit_status(d, event, verdict)
    if code == 2 and accepted.exits:
        return Reply(200, stderr.encode(), exit2=True)  # the agent blocks this event only by exit code 2
    if code == 2:
        note = f"hookd: {event} is blocked only by a command hook's exit code 2, which this HTTP hook cannot give"
        verdict = verdict._replace(not_run=(*verdict.not_run, note))
    tool = hook_input.get("tool_name") if isinstance(hook_input, dict) else None
    return Reply(200, msgspec.json.encode(dialect.render(d, event, verdict, tool if isinstance(tool, str) else None) or {}))
