"""A canary tool call, sent through exactly what an agent would run to reach hookd.

For ``hookd doctor`` and ``hookd bridge status --check``: for one installed bridge, the hook the agent
runs on its tool-call event (``PreToolUse``, Gemini CLI's ``BeforeTool``, opencode's
``tool.execute.before``) is read from the agent's own file and run as the agent would run it: the HTTP
hook's URL with its headers expanded from the agent's environment (the settings' ``env`` over the
process's, as Claude Code and Qwen Code do), the command line through ``sh -c`` as written, the opencode
plugin loaded by Node and called with opencode's ``(input, output)``, pi's extension loaded by pi's own
loader and called with pi's ``tool_call`` event. The call is the agent's own shell
tool running ``true``, in a session of its own (``hookd-canary-<nonce>``), so the daemon's event for it
can be found and its guards' results read (:func:`seen`).

What comes back is what the agent would get: an answer in its format, or how the path failed. Nothing
here decides whether that is good: ``hookd doctor`` does.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import secrets
import subprocess
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from hookd.agents import registry
from hookd.agents.registry import Hook

COMMAND = registry.CANARY_COMMAND
SESSION_PREFIX = "hookd-canary-"
TIMEOUT = 10.0  # seconds a canary may take before its path counts as hung
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


class Sent(NamedTuple):
    """What the agent got back from one hook: ``answer`` in its format (None: nothing said), or ``failure``."""

    hook: Hook
    session: str
    ms: float
    answer: Any = None
    blocked: bool = False  # the answer stops the tool call
    failure: str = ""  # how the path failed (unreachable, refused, not in the agent's format...)
    status: int | None = None  # HTTP status, or the command's exit code


def session() -> str:
    return SESSION_PREFIX + secrets.token_hex(6)


def hook_input(agent: str, session_id: str, cwd: str, command: str = COMMAND) -> dict[str, Any]:
    """The agent's own hook input for a tool call running ``command`` (the canary's ``true``)."""
    row = registry.agent(agent)
    own = getattr(row.reader(), "canary_input", None)  # an agent whose input is not shaped as Claude Code's
    if own is not None:
        return dict(own(session_id, cwd, command))
    data: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": row.tool_event,
        "tool_name": row.shell,
        "tool_input": registry.shell_input(row, command),
        **row.canary_fields,
    }
    if row.timestamp:
        data["timestamp"] = time.strftime(row.timestamp, time.gmtime())
    return data


def hooks_of(agent: str, path: str, env: Mapping[str, str] | None = None) -> list[Hook]:
    """hookd's hooks on the agent's tool-call event in ``path``."""
    return registry.agent(agent).reader().hooks(path, env or {})


# ------------------------------------------------------------------ sending


def expand(text: str, env: Mapping[str, str], allowed: tuple[str, ...] | None) -> str:
    """``$NAME`` / ``${NAME}`` as the agent expands an HTTP hook's header: only allowed names, else empty."""

    def value(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return env.get(name, "") if allowed is None or name in allowed else ""

    return _VAR.sub(value, text)


def send(hook: Hook, session_id: str, cwd: str, environ: Mapping[str, str] | None = None) -> Sent:
    """Run ``hook`` as the agent would, with the canary's tool call. Never raises."""
    env = {**(os.environ if environ is None else environ), **hook.env}
    started = time.perf_counter()
    try:
        if hook.kind == "http":
            sent = _http(hook, session_id, cwd, env)
        elif hook.kind == "command":
            sent = _command(hook, session_id, cwd, env)
        else:  # a plugin file, loaded as the agent loads it by the module its row names
            sent = importlib.import_module(registry.agent(hook.agent).loader).canary(hook, session_id, cwd, env)
    except Exception as exc:  # a canary reports; it never takes doctor down
        sent = Sent(hook, session_id, 0.0, failure=f"{type(exc).__name__}: {exc}")
    if hook.kind not in ("http", "command") and sent.ms:
        return sent  # the tool call's own time, as the loader measured it (without the seconds pi takes to load)
    return sent._replace(ms=round((time.perf_counter() - started) * 1000, 1))


def _http(hook: Hook, session_id: str, cwd: str, env: Mapping[str, str]) -> Sent:
    import http.client
    import urllib.parse

    url = urllib.parse.urlsplit(hook.target)
    body = json.dumps(hook_input(hook.agent, session_id, cwd)).encode()
    headers = {k: expand(v, env, hook.allowed_env) for k, v in hook.headers.items()}
    headers["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port or 80, timeout=TIMEOUT)
    try:
        conn.request("POST", url.path + (f"?{url.query}" if url.query else ""), body, headers)
        response = conn.getresponse()
        data = response.read()
    except OSError as exc:
        return Sent(hook, session_id, 0.0, failure=f"no answer from {hook.target}: {exc}")
    finally:
        conn.close()
    if response.status != 200:
        text = data.decode("utf-8", "replace").strip()[:300]
        return Sent(hook, session_id, 0.0, status=response.status, failure=f"{hook.target} answered {response.status}: {text}")
    return _answer(hook, session_id, data, 200)


def _command(hook: Hook, session_id: str, cwd: str, env: Mapping[str, str]) -> Sent:
    data = json.dumps(hook_input(hook.agent, session_id, cwd)).encode()
    try:
        done = subprocess.run(["/bin/sh", "-c", hook.target], input=data, capture_output=True, env=dict(env), cwd=cwd, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return Sent(hook, session_id, 0.0, failure=f"the command did not end within {TIMEOUT:g} s: {hook.target}")
    if done.returncode == 2:
        return Sent(hook, session_id, 0.0, status=2, blocked=True, answer=done.stderr.decode("utf-8", "replace").strip())
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip()[-300:]
        return Sent(hook, session_id, 0.0, status=done.returncode, failure=f"the command exited {done.returncode}: {err}")
    sent = _answer(hook, session_id, done.stdout, 0)
    if "hookd bridge:" in done.stderr.decode("utf-8", "replace") and "the agent proceeds" in done.stderr.decode("utf-8", "replace"):
        line = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1]
        return sent._replace(failure=line)
    return sent


def _answer(hook: Hook, session_id: str, data: bytes, status: int) -> Sent:
    text = data.decode("utf-8", "replace").strip()
    if not text:
        return Sent(hook, session_id, 0.0, status=status)
    try:
        answer = json.loads(text)
    except ValueError:
        return Sent(hook, session_id, 0.0, status=status, failure=f"the answer is not JSON: {text[:200]!r}")
    if not isinstance(answer, dict):
        return Sent(hook, session_id, 0.0, status=status, failure=f"the answer is not a JSON object: {text[:200]!r}")
    return Sent(hook, session_id, 0.0, answer, blocked(hook.agent, answer), status=status)


def blocked(agent: str, answer: Mapping[str, Any]) -> bool:
    """Whether an answer in ``agent``'s format stops the tool call."""
    return registry.agent(agent).reader().blocked(answer)


# ------------------------------------------------------------------ the daemon's side


def seen(socket: str | None, session_id: str, timeout: float = 5.0) -> Any:
    """The daemon's decide event for the canary's session (its ``hooks`` say what each guard did), or None."""
    from hookd_client import Client, HookdError
    from hookd_client.messages import Event

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with Client(socket, name="hookd-doctor", timeout=timeout) as client:
                for item in client.subscribe(["tool.approval.pre"], sessions=[session_id], since="10m", follow=False):
                    if isinstance(item, Event) and item.kind == "decide":
                        return item
        except (HookdError, OSError):
            return None
        time.sleep(0.05)  # its event is staged as its reply goes out: look again
    return None
