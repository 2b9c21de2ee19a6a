"""Doctor's canary through pi's extension: the extension loaded by pi's own loader and called with pi's
``tool_call`` for a shell tool call (hookd/agents/canary.py; the pi row's ``loader``)."""

from __future__ import annotations

import json
import pathlib
from collections.abc import Mapping

from hookd.agents import registry
from hookd.agents.canary import TIMEOUT, Sent
from hookd.agents.registry import Hook


def canary(hook: Hook, session_id: str, cwd: str, env: Mapping[str, str]) -> Sent:
    """pi's extension, loaded by pi's own loader (jiti, as pi loads TypeScript) and called with pi's tool_call."""
    from hookd.agents.pi import install as pi
    from hookd.agents.pi import version

    found = version.detect(environ=dict(env))
    if version.package_index(found) is None:
        return Sent(hook, session_id, 0.0, failure=f"the extension cannot be loaded as pi loads it: {found.describe()}")
    args = json.dumps(registry.shell_input(registry.agent(hook.agent)))
    try:
        # Loading pi itself takes seconds; TIMEOUT bounds the tool call, which the loader times on its own.
        result = pi.load(pathlib.Path(hook.target), found, (session_id, cwd, args), timeout=60 + TIMEOUT)
    except FileNotFoundError:
        return Sent(hook, session_id, 0.0, failure="node is not on PATH: the extension cannot be loaded to check it")
    except pi.InstallError as exc:
        return Sent(hook, session_id, 0.0, failure=f"the extension did not load in pi: {exc}")
    if result.get("thrown"):
        return Sent(hook, session_id, 0.0, failure=f"the extension threw on a tool call: {result['thrown']}")
    answer = result["result"] if isinstance(result.get("result"), dict) else {}
    reason = str(answer.get("reason", ""))
    ms = float(result.get("ms") or 0.0)
    sent = Sent(hook, session_id, ms, answer=answer or None, blocked=answer.get("block") is True)
    if ms > TIMEOUT * 1000:
        return sent._replace(failure=f"the extension did not answer within {TIMEOUT:g} s")
    if sent.blocked and " not checked: " in reason:
        return sent._replace(failure=reason)  # refused because hookd could not be asked (fail closed)
    warned = str(result.get("stderr", "")).strip()
    if not sent.blocked and "pi proceeds" in warned:
        return sent._replace(failure=warned.splitlines()[-1])
    return sent
