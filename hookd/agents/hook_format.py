"""An agent's hook contract from the hook's side, as one table (``HookFormat``): what a hook written for the
agent is given and what its answer means. Each agent's ``hooks.py`` fills one; hookd/agents/adapter.py
runs an imported hook with it. Pure data: the daemon's runners read the same contracts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from hookd.agents.dialect import AGENT_ENV


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
    # (the option's value, hookd's environment, the hook input) -> the event the answer is read for
    event: Callable[[str | None, Mapping[str, str], Mapping[str, Any]], str] = lambda _option, _environ, data: str(
        data.get("hook_event_name", "")
    )
    usage: str = ""  # the command's form, where errors show it ("": ``hookd bridge run-hook AGENT -- CMD ...``)
    relays_stderr: bool = False  # the hook's stderr is passed on to hookd's (the agent shows it, and reads no answer from it)


def context(environ: Mapping[str, str]) -> tuple[str, str, str]:
    """(point, session, project) of the hookd call, from the HOOKD_* variables hookd starts a command hook with."""
    return environ.get("HOOKD_POINT", ""), environ.get("HOOKD_SESSION_ID", ""), environ.get("HOOKD_PROJECT_DIR", "")


def event_input(
    hook_input: Callable[[Mapping[str, Any], str, str, str, str], dict[str, Any]],
) -> Callable[[Mapping[str, Any], str | None, Mapping[str, str], str], dict[str, Any]]:
    """A ``hook_input`` for an agent whose hooks are configured per event: its own
    ``hook_input(payload, point, event, session, project)``, the project defaulting to the working directory."""

    def read(payload: Mapping[str, Any], event: str | None, environ: Mapping[str, str], cwd: str) -> dict[str, Any]:
        point, session, project = context(environ)
        return hook_input(payload, point, event or "", session, project or cwd)

    return read


def option_or_point(point_events: Mapping[str, str]) -> Callable[[str | None, Mapping[str, str], Mapping[str, Any]], str]:
    """An ``event`` for an agent whose input carries no event name: the ``--event`` given, else the point's."""
    return lambda option, environ, _data: option or point_events.get(environ.get("HOOKD_POINT", ""), "")


def forwarded_environment(base: Mapping[str, str], payload: Mapping[str, Any]) -> dict[str, str]:
    """The agent's environment, as the bridge or the shim forwarded it in the payload, over hookd's."""
    env = dict(base)
    forwarded = payload.get(AGENT_ENV)
    if isinstance(forwarded, dict):
        env.update((k, v) for k, v in forwarded.items() if isinstance(k, str) and isinstance(v, str))
    return env


def per_event(
    agent: str,
    description: str,
    option_help: str,
    hook_input: Callable[[Mapping[str, Any], str, str, str, str], dict[str, Any]],
    point_events: Mapping[str, str],
    cwd: Callable[[Mapping[str, Any]], str | None],
    answer: Callable[[str, int, str, str, Mapping[str, Any]], dict[str, Any] | None],
) -> HookFormat:
    """The contract of an agent whose hooks are configured per event and reached through the shim (Copilot CLI,
    Cline): ``--event`` names the event (else the point's), every hook runs, as given, with the environment the shim
    forwarded; its stderr is passed on, since the agent reads no answer from it."""
    prog = f"hookd bridge run-hook {agent}"
    return HookFormat(
        prog=prog,
        description=description,
        option="--event",
        option_help=option_help,
        hook_input=event_input(hook_input),
        environment=lambda base, payload, _data: forwarded_environment(base, payload),
        selected=lambda _event, _name, _data: True,
        argv=lambda cmd, _env: cmd,
        cwd=cwd,
        answer=answer,
        event=option_or_point(point_events),
        usage=f"{prog} --event EVENT -- CMD ...",
        relays_stderr=True,
    )
