"""The shim and the Python bridges never let a deciding event through on an answer they cannot use.

A running hookd (or whatever holds its port) that answers non-2xx, garbage, a body cut short or not
JSON, or closes without answering: the shim denies an event that decides, in the agent's own format,
exactly as hookd renders a deny (exit status 2 where the agent blocks only that way); other events
proceed as when hookd is down. A hook input the Python bridges cannot read is denied the same way when
its event, however broken the input, decides. The shim is built with the machine's C compiler and run
as the agent runs it; the daemons are real.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.agents import dialect, shim
from hookd.agents.claude_code import protocol as cc
from hookd.agents.codex import protocol as codex
from hookd.agents.gemini import protocol as gemini

from ..conftest import HOOKD, Env
from .httphooks import endpoint
from .test_http_hooks import PRE, guarded, seen_rows

ANSWERS = {
    "garbage": b"this is not HTTP\r\n\r\n",
    "500": b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 4\r\nconnection: close\r\n\r\noops",
    "not json": b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\nconnection: close\r\n\r\nhello",
    "cut short": b"HTTP/1.1 200 OK\r\ncontent-length: 90\r\nconnection: close\r\n\r\n{}",
    "closed": b"",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shim.compiler() is None:
        pytest.skip("no C compiler on this machine: the Python bridge is used instead")
    result = shim.build(tmp_path_factory.mktemp("shim"))
    assert result.path is not None, result.why
    return result.path


@pytest.fixture
def token(tmp_path: Path) -> str:
    path = tmp_path / "token"
    path.write_text("s" * 43)
    path.chmod(0o600)
    return str(path)


class Impostor:
    """Something on the port that answers every request with ``answer`` (nothing: it closes at once)."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                got = b""
                try:
                    while b"\r\n\r\n" not in got:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        got += chunk
                    conn.sendall(self.answer)
                except OSError:
                    pass


@pytest.fixture
def impostors() -> Iterator[dict[str, Impostor]]:
    servers = {name: Impostor(answer) for name, answer in ANSWERS.items()}
    yield servers
    for server in servers.values():
        server.sock.close()


def run(argv: list[str], data: bytes, environ: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(argv, input=data, capture_output=True, env=environ or dict(os.environ), timeout=60, check=False)


def denied(event: str, out: bytes, reason: str, proto=cc) -> None:  # type: ignore[no-untyped-def]
    """``out`` is exactly the deny the agent's mapping renders with ``reason``."""
    expected = dialect.render(proto.DIALECT, event, dialect.Verdict("deny", reason)) or dialect.render(
        proto.DIALECT, event, dialect.Verdict(not_run=(reason,))
    )
    assert json.loads(out) == expected


def shim_reason(why: str, event: str) -> str:
    return f"hookd: {why}; hookd is running but its answer cannot be used, so {event} is denied"


WHY = {
    "garbage": "hookd's answer is not HTTP",
    "500": "hookd refused {event} (HTTP 500: oops)",
    "not json": "hookd's answer is not a JSON object",
    "cut short": "hookd's answer was cut short",
    "closed": "hookd closed the connection without answering",
}


def test_a_running_hookd_that_cannot_answer_never_lets_a_deciding_event_through(built: str, token: str, impostors) -> None:  # type: ignore[no-untyped-def]
    for name, server in impostors.items():
        done = run([built, "PreToolUse", str(server.port), token], json.dumps(PRE).encode())
        assert done.returncode == 0, (name, done.stderr)
        denied("PreToolUse", done.stdout, shim_reason(WHY[name].format(event="PreToolUse"), "PreToolUse"))
        # An event that decides nothing proceeds, as when hookd is down.
        done = run([built, "Notification", str(server.port), token], b'{"hook_event_name": "Notification"}')
        assert done.returncode == 0 and done.stdout == b"" and b"the agent proceeds" in done.stderr, (name, done)
    server = impostors["500"]
    # Every event that decides, for each agent the shim serves: exactly the deny hookd renders.
    for agent, proto in (("claude-code", cc), ("codex", codex)):
        for event, (_, decides) in proto.ROUTES.items():
            if not decides:
                continue
            done = run([built, event, str(server.port), token, "--agent", agent], json.dumps({"hook_event_name": event}).encode())
            if agent == "claude-code" and dialect.exit_status(cc.DIALECT, event, dialect.Verdict("deny", "x"))[0] == 2:
                assert done.returncode == 2 and done.stdout == b"" and b"HTTP 500" in done.stderr, (event, done)
                continue
            assert done.returncode == 0, (agent, event, done.stderr)
            denied(event, done.stdout, shim_reason(WHY["500"].format(event=event), event), proto)


def test_a_real_daemon_refusing_the_secret_gets_a_deny_but_a_daemon_down_keeps_its_policy(
    built: str, env: Env, daemon_factory, token: str
) -> None:
    d = daemon_factory()
    ep = endpoint(d)
    done = run([built, "PreToolUse", str(ep.port), token], json.dumps(PRE).encode())
    assert done.returncode == 0
    reason = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("hookd: hookd refused PreToolUse (HTTP 401: ") and reason.endswith("so PreToolUse is denied"), reason
    denied("PreToolUse", done.stdout, reason)
    d.stop()
    done = run([built, "PreToolUse", str(ep.port), token], json.dumps(PRE).encode())
    assert done.returncode == 0 and done.stdout == b"" and b"the agent proceeds" in done.stderr


def bridge(env: Env, agent: str, data: bytes) -> subprocess.CompletedProcess[bytes]:
    argv = [*HOOKD, "bridge", agent, "--timeout", "30"]
    return subprocess.run(argv, input=data, capture_output=True, env=env.env, timeout=60, check=False)


def test_the_python_bridges_deny_a_deciding_event_they_cannot_read(env: Env, daemon_factory) -> None:
    daemon_factory()
    broken = b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"'
    for agent, event, proto in (("claude-code", "PreToolUse", cc), ("codex", "PreToolUse", codex), ("gemini", "BeforeTool", gemini)):
        done = bridge(env, agent, broken.replace(b"PreToolUse", event.encode()))
        assert done.returncode == 0, (agent, done.stderr)
        error = done.stderr.decode().split("bad hook input: ", 1)[1].splitlines()[0]
        reason = f"hookd: the {event} input cannot be handed to hookd ({error}); no guard could see it, so it is denied"
        denied(event, done.stdout, reason, proto)
    done = bridge(env, "claude-code", b'{"hook_event_name": "TeammateIdle", oops')
    assert done.returncode == 2 and b"cannot be handed to hookd" in done.stderr
    # Nothing to deny: an event that decides nothing, or no event to be found.
    assert bridge(env, "claude-code", b'{"hook_event_name": "Notification", oops').returncode == 1
    assert bridge(env, "claude-code", b"not json").returncode == 1


def test_the_python_bridge_hands_the_guard_a_lone_surrogate(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    daemon_factory()
    data = json.dumps(PRE)[:-1] + ', "tool_input": {"command": "rm -rf \\ud800"}}'
    done = bridge(env, "claude-code", data.encode())
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"] == "no recursive deletes"
    assert seen_rows(seen)[-1]["payload"]["args"]["command"] == "rm -rf \ufffd"
