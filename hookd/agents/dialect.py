"""An agent's hook protocol as data: one table per agent, one ``route`` and one ``render`` for all.

An agent that calls command or HTTP hooks sends a JSON object naming its event; hookd answers with
the JSON the agent reads. What differs from agent to agent is data: which event goes to which hookd
point (and whether the agent lets a hook decide it), where the project directory is found, which
input fields every event carries, which answer fields the agent reads on every event, and how an
event's decision is written. Each agent's protocol module (claude_code/protocol.py,
codex/protocol.py, gemini/protocol.py, qwen/protocol.py) is that table, and this module is the
mapping they all go through. Adding an agent that speaks JSON hooks is a table and an installer.

Only the standard library and msgspec are imported here, transitively too: the command bridge
runs this once per agent event.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from hookd.core import vocabulary

HOOK_INPUT = "hookInput"
# The payload field holding the environment the agent gave its hook (the bridge forwards it), so a
# hook imported from the agent runs with the agent's PATH and variables.
AGENT_ENV = "agentEnv"
ENV_MEMORY = 256  # sessions whose last forwarded environment is kept for calls that carry none
# Claude Code gives all SessionEnd hooks 1.5 s together: a command bridge waits at most this on such an event.
SESSION_END_TIMEOUT = 1.0
RENAMED = {"tool_name": "toolName", "tool_input": "args", "tool_response": "output"}
_UNRENAMED = {v: k for k, v in RENAMED.items()}
_RESERVED = frozenset({HOOK_INPUT, AGENT_ENV, vocabulary.AGENT_KEY, vocabulary.AGENT_TOOL_KEY})


class BadInput(ValueError):
    """The agent's stdin is not a hook input object."""


# NamedTuples rather than dataclasses: dataclasses imports inspect, a few ms of every agent event.
class Call(NamedTuple):
    """What the bridge asks the daemon for one hook event."""

    event: str
    point: str
    decide: bool
    payload: dict[str, Any]
    session: str | None
    project: str | None
    attach: bool = False
    dispose: bool = False


class Verdict(NamedTuple):
    """The part of a hookd Outcome that an agent can act on."""

    decision: str | None = None
    reason: str | None = None
    injection: str | None = None
    modified_input: dict[str, Any] | None = None
    modified_output: Any = None
    decided_by: str | None = None
    errors: tuple[str, ...] = ()
    not_run: tuple[str, ...] = ()  # one line per configured guard that did not run, for the user
    agent_output: dict[str, Any] | None = None  # the outcome's agentOutput: fields only the agent knows


class Decided(NamedTuple):
    """An event's decision in the agent's words: its ``hookSpecificOutput`` fields (None: none), its
    top-level fields, and notes for the user (what the agent cannot do with the verdict)."""

    specific: dict[str, Any] | None
    top: dict[str, Any]
    notes: list[str]


# (event, verdict, the hook's agentOutput, the input's tool name) -> the event's decision fields.
DecisionFields = Callable[[str, Verdict, dict[str, Any], "str | None"], Decided]


class Dialect(NamedTuple):
    """One agent's hook protocol."""

    agent: str  # the name events carry (`agent`), and the vocabulary's table
    routes: Mapping[str, tuple[str, bool]]  # event -> (hookd point, whether the agent lets a hook decide it)
    unmapped_prefix: str  # the custom point of an event the table does not know: prefix + event
    common_fields: frozenset[str]  # fields every event carries: kept under hookInput, not in the payload
    decision_fields: DecisionFields
    project_env: str | None = None  # the variable naming the project root (else the input's cwd)
    session_start: str = "SessionStart"
    session_end: str = "SessionEnd"
    remember_env: bool = False  # calls without an environment (HTTP hooks) get the session's last one
    # The agentOutput fields that pass on every event (`continue: false` with `stopReason`, ...):
    # (event, agentOutput, the answer so far) -> None, writing them into the answer.
    flow: Callable[[str, dict[str, Any], dict[str, Any]], None] | None = None
    always_answer: bool = False  # an empty object rather than no output (the agent reads stderr otherwise)
    exit2_only: frozenset[str] = frozenset()  # events the agent blocks only when a command hook exits 2
    fail_closed_event: str = "PreToolUse"  # the tool-call event a command hook under --fail-closed denies when hookd is down
    # The agent's hook input in the shape ``route`` reads (``hook_event_name``, ``session_id``, ``cwd``,
    # ``tool_name``, ``tool_input``, ``tool_response``), for an agent that names them otherwise; None: as it is.
    normalise: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    # The events whose deny writes its reason inside a shell command (Cline's overrideInput): the shim quotes it there.
    shell_reason: frozenset[str] = frozenset()
    # The most a command bridge waits for hookd on ``session_end``, where the agent gives its hooks little time
    # (None: as long as on any event).
    session_end_timeout: float | None = None


def routes_like(
    base: Dialect, prefix: str, events: Mapping[str, str | bool], reads_answer: frozenset[str] | None = None
) -> dict[str, tuple[str, bool]]:
    """An agent's routes told by another agent's table (Claude Code's): each event -> the ``base`` event it is, which
    gives its point and whether it decides, or True / False: an event the base has not, on a custom point of the
    agent's own (``prefix`` + the event) that decides or not. A base event on a custom point of the base's is on
    the agent's own custom point too. ``reads_answer``: the events the agent reads an answer on, where it reads
    fewer than the base (the others are only told); None: as the base."""
    out: dict[str, tuple[str, bool]] = {}
    for event, like in events.items():
        if isinstance(like, bool):
            out[event] = (prefix + event, like)
            continue
        point, decide = base.routes[like]
        custom = point.startswith(base.unmapped_prefix)
        out[event] = (prefix + event if custom else point, decide and (reads_answer is None or event in reads_answer))
    return out


def camel(name: str) -> str:
    """snake_case -> camelCase (without `re`: every import counts on this path)."""
    renamed = RENAMED.get(name)
    if renamed:
        return renamed
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    """camelCase -> snake_case, the inverse of ``camel`` for the agents' field names."""
    renamed = _UNRENAMED.get(name)
    if renamed:
        return renamed
    return "".join("_" + c.lower() if "A" <= c <= "Z" else c for c in name)


def payload_of(hook_input: Mapping[str, Any], common: frozenset[str]) -> dict[str, Any]:
    """hookd's payload: the event's own fields in hookd's camelCase, and under ``hookInput`` the rest.

    Each field travels once: a large Write's content must fit the daemon's frame limit, not twice
    over. ``hookInput`` holds the common fields, and any field whose name would not come back
    unchanged from camelCase, so that the agent's input can be rebuilt exactly for a hook written
    for the agent (claude_code/hooks.py)."""
    payload: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    for key, value in hook_input.items():
        name = camel(key)
        if key in common or name in _RESERVED or name in payload or snake(name) != key:
            kept[key] = value
        else:
            payload[name] = value
    payload[HOOK_INPUT] = kept
    return payload


_envs: dict[str, dict[str, str]] = {}


def _agent_env(session: str | None, environ: Mapping[str, str], remember: bool) -> dict[str, str] | None:
    """The agent's environment for this call: what was forwarded with it, over (when the dialect
    remembers) what was forwarded before for its session; else None (hooks then run with hookd's)."""
    env = {k: v for k, v in environ.items() if isinstance(k, str) and isinstance(v, str)} if environ else {}
    if not remember:
        return env or None
    if env:
        if session is not None:
            env = {**_envs.pop(session, {}), **env}
            _envs[session] = env
            while len(_envs) > ENV_MEMORY:
                del _envs[next(iter(_envs))]
        return env
    return _envs.get(session) if session is not None else None


def agent_env(session: str | None) -> dict[str, str] | None:
    """The agent's environment last forwarded for ``session`` in this process (the daemon, for HTTP hooks)."""
    return _envs.get(session) if session is not None else None


def route(d: Dialect, hook_input: Any, environ: Mapping[str, str], carry_env: bool = True) -> Call:
    """The hookd call for one hook input of agent ``d``. Raises BadInput.

    A tool call's name and arguments are put into hookd's one vocabulary (hookd/core/vocabulary.py),
    and the payload names the agent. ``environ`` is the environment the agent started its hook with,
    as the bridge received it; it travels in the payload under ``agentEnv``. Empty when the call
    carries none (an HTTP hook): for an agent whose dialect remembers, the last environment
    forwarded for the same session stands in, and ``carry_env`` False leaves it out of a call with a
    session (the daemon looks it up itself)."""
    if not isinstance(hook_input, dict):
        raise BadInput(f"hook input must be a JSON object, got {type(hook_input).__name__}")
    if d.normalise is not None:
        hook_input = d.normalise(hook_input)
    event = hook_input.get("hook_event_name")
    if not isinstance(event, str) or not event:
        raise BadInput("hook input has no hook_event_name")
    session = hook_input.get("session_id")
    session = session if isinstance(session, str) and session else None
    # The project variable stays at the project root while cwd follows `cd` and worktrees.
    project = (environ.get(d.project_env) if d.project_env else None) or hook_input.get("cwd")
    project = project if isinstance(project, str) and project.startswith("/") else None
    point, decide = d.routes.get(event, (d.unmapped_prefix + event, False))
    payload = vocabulary.canonical(payload_of(hook_input, d.common_fields), d.agent)
    env = _agent_env(session, environ, d.remember_env)
    if env is not None and (carry_env or session is None):
        payload[AGENT_ENV] = env
    if d.remember_env and event == d.session_end and session is not None:
        _envs.pop(session, None)
    has_session = session is not None
    return Call(
        event,
        point,
        decide,
        payload,
        session,
        project,
        attach=event == d.session_start and has_session,
        dispose=event == d.session_end and has_session,
    )


def for_agent(call: Call, verdict: Verdict | None) -> Verdict | None:
    """``verdict`` with its rewrite in the agent's own argument names: guards rewrite hookd's
    (``args.path``), the agent reads its own (``file_path``)."""
    if verdict is None or verdict.modified_input is None:
        return verdict
    agent = call.payload.get(vocabulary.AGENT_KEY)
    name = call.payload.get(vocabulary.AGENT_TOOL_KEY)
    if not isinstance(agent, str) or not isinstance(name, str):
        return verdict
    sent = call.payload.get(vocabulary.ARGS_KEY)
    return verdict._replace(modified_input=vocabulary.agent_args(agent, name, verdict.modified_input, sent))


def why(verdict: Verdict, what: str) -> str:
    """The reason a deny gives the agent: the hook's own, else which hook and what it did (never empty)."""
    if verdict.reason:
        return verdict.reason
    by = f" {verdict.decided_by!r}" if verdict.decided_by else ""
    return f"{what} by hookd hook{by}"


def not_run_line(name: str, reason: str, message: str) -> str:
    """A guard that did not run, in one line for the user; names and messages come from files and
    hooks, so no control character passes."""
    from hookd.core.termsafe import one_line  # here: most answers name no guard that did not run

    detail = f" ({one_line(message)})" if message and message != reason else ""
    return f"hookd: guard {one_line(repr(name))} did not run: {one_line(reason)}{detail}"


def verdict(outcome: Any) -> Verdict:
    """The part of a hookd Outcome that an agent can act on (the fields only the agent knows included)."""
    by = outcome.decided_by.name if outcome.decided_by is not None else None
    errors = tuple(f"{e.hook.name}: {e.code}: {e.message}" for e in outcome.errors)
    skipped = tuple(not_run_line(n.hook.name, n.reason, n.message) for n in getattr(outcome, "not_run", ()))
    return Verdict(
        outcome.decision,
        outcome.reason,
        outcome.injection,
        outcome.modified_input,
        outcome.modified_output,
        by,
        errors,
        skipped,
        getattr(outcome, "agent_output", None),
    )


def render(d: Dialect, event: str, v: Verdict | None, tool_name: str | None = None) -> dict[str, Any] | None:
    """The agent's output JSON for ``v``; None when there is nothing to say (exit 0, no stdout), or
    an empty object for an agent that must always read one.

    The event's decision comes from the dialect's table; the rest is the same for every agent: the
    agent fields hooks gave (``continue: false`` with ``stopReason``, ``suppressOutput``, other
    ``hookSpecificOutput`` fields under ``specific``) pass on, and hooks that failed and guards that
    did not run are named in ``systemMessage``, which agents show the user: a guard that did not run
    must never pass for one that allowed."""
    if v is None:
        return {} if d.always_answer else None
    agent = v.agent_output if isinstance(v.agent_output, dict) else {}
    decided = d.decision_fields(event, v, agent, tool_name)
    out = decided.top
    specific = decided.specific
    (d.flow or pass_flow)(event, agent, out)
    messages = [m for m in (agent.get("systemMessage"), out.pop("systemMessage", None)) if isinstance(m, str) and m]
    messages += decided.notes
    messages += [f"hookd: hook {e}" for e in v.errors]
    messages += list(v.not_run)
    if messages:
        out["systemMessage"] = "\n".join(messages)
    if specific is not None:
        out["hookSpecificOutput"] = specific
    return out if out or d.always_answer else None


def exit_status(d: Dialect, event: str, v: Verdict | None) -> tuple[int, str]:
    """(exit code, stderr) for a command hook's answer: 2 with the reason where the agent blocks ``event``
    only through exit code 2; else 0 and nothing."""
    if v is not None and v.decision == "deny" and event in d.exit2_only:
        return 2, why(v, "blocked")
    return 0, ""


def fail_closed(d: Dialect, event: str | None, reason: str) -> dict[str, Any] | None:
    """The answer under --fail-closed when hookd cannot be asked: the tool-call event (``fail_closed_event``)
    denied with ``reason``, in the words hookd's own deny has there; None for every other event (it proceeds)."""
    if event is None or event != d.fail_closed_event:
        return None
    return render(d, event, Verdict("deny", reason))


UNIVERSAL = ("continue", "stopReason", "suppressOutput")


def pass_flow(event: str, agent: dict[str, Any], out: dict[str, Any], keys: tuple[str, ...] = UNIVERSAL) -> None:
    """The agent fields every event takes, as the hook gave them; `continue` and `stopReason` only to stop."""
    for key in keys:
        if key in agent:
            out[key] = agent[key]
    if out.get("continue") is not False:
        out.pop("continue", None)
        out.pop("stopReason", None)


def specific(event: str, **fields: Any) -> dict[str, Any] | None:
    """An event's ``hookSpecificOutput`` with the fields that are set, or None when none is."""
    present = {k: v for k, v in fields.items() if v is not None}
    return {"hookEventName": event, **present} if present else None


def with_agent_specific(event: str, fields: dict[str, Any] | None, agent: dict[str, Any]) -> dict[str, Any] | None:
    """``fields`` with the hookSpecificOutput fields a hook gave under ``agentOutput.specific``."""
    extra = agent.get("specific")
    if isinstance(extra, dict) and extra:
        return {**(fields or {"hookEventName": event}), **{k: x for k, x in extra.items() if k != "hookEventName"}}
    return fields
