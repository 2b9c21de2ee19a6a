"""`hookd doctor`'s checks of the agents: for every bridge installed, a canary tool call through exactly what
that agent would run, and every way that path would let a tool call through unguarded.

The canary (hookd/agents/canary.py) is the agent's own shell tool running ``true``: the answer must come
back in the agent's format, the daemon must have seen it as that agent's ``execute_command``, and every
guard configured for it must have run. Then what holds when hookd is not there to answer: fail-closed, the
Claude Code version that honours it, Codex's trust. Each problem says how to fix it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from typing import Any, NamedTuple

from hookd.cli.common import plural
from hookd.cli.doctor_checks import Check, Daemon

# Why a guard did not run, as the event's hook results say it: each means the agent's call went unguarded.
NOT_RUN = frozenset(
    {"untrusted", "invalid_file", "not_loaded", "plugin_failed", "worker_failed", "shed", "too_large", "disconnected", "deadline"}
)


class Found(NamedTuple):
    agent: str
    path: str
    install: Any  # installs.Install
    hooks: list[Any]  # canary.Hook


def scope_flag(agent: str, path: str, cwd: str) -> str:
    """The install option that names ``path`` again (``--project``, ``--settings FILE``...)."""
    from hookd.agents import installs, registry

    row = registry.agent(agent)
    for flag, where in zip(row.scopes, installs.locations(agent, cwd), strict=False):
        if os.path.abspath(where) == os.path.abspath(path):
            return flag
    if not row.settings_option:
        return ""
    return f"--settings {shlex.quote(path)}"


def installed(cwd: str, state: str | None) -> Iterator[Found]:
    """Every bridge install the user has, with the hooks its agent runs on a tool call."""
    from hookd.agents import installs, registry

    for row in registry.AGENTS:
        reader = row.reader()
        for path in installs.locations(row.name, cwd, state):
            found = reader.inspect(path)
            if not found.hooks and not found.problems:
                continue
            yield Found(row.name, path, found, reader.hooks(path, reader.hook_env(cwd, path)))


def agent_checks(d: Daemon, cwd: str, state: str | None) -> Iterator[Check]:
    any_found = False
    for found in installed(cwd, state):
        any_found = True
        yield from _checks(d, cwd, found)
    if not any_found:
        yield Check("agents", "warn", "no agent is bridged to hookd: no agent's hooks reach it", "`hookd bridge install AGENT`")


def _checks(d: Daemon, cwd: str, f: Found) -> Iterator[Check]:
    from hookd.agents import registry

    name = f.agent
    again = f"`hookd bridge install {f.agent} {scope_flag(f.agent, f.path, cwd)}`".replace("  ", " ").replace(" `", "`")
    for problem in f.install.problems:
        yield Check(name, "fail", f"{f.path}: {problem}", again)
    for warning in f.install.warnings:
        yield Check(name, "warn", f"{f.path}: {warning}", again)
    if not f.hooks:
        event = registry.agent(f.agent).tool_event
        yield Check(name, "fail", f"{f.path}: nothing of hookd's runs on {event}: {f.agent}'s tool calls never reach hookd", again)
        return
    for hook in f.hooks:
        yield _canary(d, cwd, f, hook, again)
    if not any(h.fail_closed for h in f.hooks):
        yield Check(
            name,
            "warn",
            f"{f.path}: when hookd is down or cannot answer, {f.agent} runs tool calls unguarded",
            again if registry.agent(f.agent).fails_closed else again.rstrip("`") + " --fail-closed`",
        )
    yield from _holds_when_down(f, again)


def _canary(d: Daemon, cwd: str, f: Found, hook: Any, again: str) -> Check:
    from hookd.agents import canary

    name = f.agent
    how = {"http": "HTTP hook", "command": "command", "plugin": "plugin", "extension": "extension"}[hook.kind]
    session = canary.session()
    sent = canary.send(hook, session, cwd)
    where = f"{f.path} ({how})"
    if d.status is None or sent.failure:
        return _unanswered(d, f, hook, sent, where, again)
    event = canary.seen(d.socket, session)
    if event is None:
        return Check(
            name, "fail", f"{where}: a canary tool call was answered, but hookd never saw it: the agent's tool calls bypass hookd", again
        )
    payload = event.payload if isinstance(event.payload, dict) else {}
    if payload.get("agent") != f.agent:
        return Check(
            name,
            "warn",
            f"{where}: hookd sees this agent's calls as {payload.get('agent') or 'no agent'!r}, not {f.agent!r}",
            again,
        )
    if payload.get("toolName") != "execute_command":
        return Check(
            name,
            "fail",
            f"{where}: the agent's shell arrives as {payload.get('toolName')!r}, not execute_command: a guard on "
            "execute_command would not see it",
            again,
        )
    runs = list(event.hooks or [])
    bad = [r for r in runs if r.skipped in NOT_RUN or r.error]
    if bad:
        what = "; ".join(
            f"{r.hook.name!r} {'did not run: ' + str(r.skipped) if r.skipped else 'failed: ' + str(r.error)}"
            + (f" ({r.message})" if r.message else "")
            for r in bad
        )
        return Check(
            name,
            "fail",
            f"{where}: a canary tool call reached hookd, but its guards did not all run: {what}",
            "the other checks of `hookd doctor` name each cause",
        )
    guards = [r.hook.name for r in runs if r.type == "decision" and not r.shadow]
    if not guards:
        return Check(
            name,
            "warn",
            f"{where}: a canary tool call went through ({sent.ms:g} ms), but no guard is in force for {f.agent}'s tool calls "
            "(tool.approval.pre)",
            "add a decision hook on tool.approval.pre (`hookd init`)",
        )
    decided = "blocked" if sent.blocked else "answered"
    listed = ", ".join(repr(g) for g in dict.fromkeys(guards))
    return Check(name, "ok", f"{where}: a canary tool call reached hookd and was {decided} in {sent.ms:g} ms; guards in force: {listed}")


def _unanswered(d: Daemon, f: Found, hook: Any, sent: Any, where: str, again: str) -> Check:
    """A canary that hookd did not answer: whether the agent then refuses the tool call or runs it."""
    from hookd.agents import agent_version, registry

    why = sent.failure or "hookd is not running"
    refused = sent.blocked
    row = registry.agent(f.agent)
    if not refused and hook.kind == "http" and hook.fail_closed and sent.status is None and row.version and row.version.on_failure:
        # The agent's own onFailure: block refuses a call its HTTP hook could not make, if it honours it.
        refused = agent_version.of(row).at_least(row.version.minimum)
    if refused and d.status is None:
        return Check(
            f.agent, "warn", f"{where}: hookd does not answer ({why}); {f.agent} refuses tool calls until it does", _fix_for(sent, again)
        )
    return Check(
        f.agent, "fail", f"{where}: a canary tool call got no answer hookd gave ({why}): {f.agent} runs it unguarded", _fix_for(sent, again)
    )


def _fix_for(sent: Any, again: str) -> str:
    text = sent.failure
    if sent.status == 401 or "secret" in text:
        return again + " (the secret it holds is not hookd's now)"
    if "Connection refused" in text or "not running" in text or "not answering" in text:
        return "start hookd (`systemctl --user start hookd.socket`, or `hookd serve`)"
    if "node" in text and "PATH" in text:
        return "install Node.js to let doctor load the plugin (opencode itself does not need it)"
    return again


def _holds_when_down(f: Found, again: str) -> Iterator[Check]:
    """What keeps tool calls guarded when hookd cannot answer: the agent's own handling of a failed hook."""
    from hookd.agents import registry

    if registry.agent(f.agent).trusts_hooks:
        yield from _trust(f, again)
    yield from _version(f, again)


def _version(f: Found, again: str) -> Iterator[Check]:
    """The agent the user runs, as its row's ``version`` says: older than the bridge needs, or not to be told."""
    from hookd.agents import agent_version, registry

    row = registry.agent(f.agent)
    v = row.version
    if v is None:
        return
    if v.on_failure:  # the version decides only whether a fail-closed HTTP hook holds with hookd down
        if any(h.kind == "http" and h.fail_closed for h in f.hooks):
            found = agent_version.of(row)
            if not found.at_least(v.minimum):
                yield Check(
                    f.agent,
                    "fail",
                    f"{f.path}: fail-closed is an HTTP hook's onFailure, which {found.describe()} ignores (it needs "
                    f"{agent_version.minimum(row)} or later): with hookd down, tool calls run",
                    f"upgrade {row.title}, or {again.strip('`')} again (install then puts the shim on PreToolUse)",
                )
        return
    if not (v.older or v.unknown):
        return  # the agent's reader names what an older one cannot do, as a problem of its install
    found = agent_version.of(row)
    older = agent_version.problem(row, found)
    if older:
        yield Check(f.agent, v.severity, f"{f.path}: {older}", v.fix)
    elif found.version is None and v.unknown:
        yield Check(f.agent, "warn", f"{f.path}: {found.describe()}: {v.unknown}", "")


def _trust(f: Found, again: str) -> Iterator[Check]:
    """An agent that runs only the hooks it trusted (its row's ``trusts_hooks``) must have trusted every one of hookd's."""

    from hookd.agents import registry

    row = registry.agent(f.agent)
    reader: Any = row.reader()  # a reader with ``untrusted(path)``, as the row says
    try:
        total, untrusted = reader.untrusted(f.path)
    except (OSError, ValueError) as exc:
        yield Check(f.agent, "warn", f"{f.path}: cannot tell whether {row.title} trusts hookd's hooks: {exc}", again)
        return
    if untrusted:
        yield Check(
            f.agent,
            "fail",
            f"{f.path}: {row.title} has not trusted {len(untrusted)} of hookd's {plural(total, 'hook')}, and runs no untrusted hook: "
            "its tool calls go unguarded",
            again + f" (install trusts them through {row.title})",
        )
