"""On a deciding event the HTTP endpoint never answers non-2xx: Claude Code runs the tool after any
non-2xx answer. What agents really send is decoded so the guard sees it (a lone surrogate escape,
deep nesting); whatever the endpoint still cannot handle is a 200 that denies in the agent's own
format, naming the guards that could not run, or goes ahead with a notice when none is configured.
Real daemon, real loopback socket, real guard.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..conftest import Env, write_script
from .httphooks import Endpoint, endpoint, status_and_body
from .test_http_hooks import PRE, guarded, seen_rows

HANG_GUARD = 60.0  # seconds; only so a bug cannot hang the suite


def deny_of(body: bytes) -> str:
    out = json.loads(body)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return str(out["permissionDecisionReason"])


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_a_lone_surrogate_reaches_the_guard(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    # JSON.stringify writes a lone surrogate as its escape, and so does a model's tool call.
    body = json.dumps(PRE)[:-1] + ', "tool_input": {"command": "rm -rf \\ud800 build"}}'
    status, out = status_and_body(ep.request(body.encode()))
    assert status == 200, out
    assert deny_of(out) == "no recursive deletes"  # the guard's own answer: it saw the call
    assert seen_rows(seen)[-1]["payload"]["args"]["command"] == "rm -rf \ufffd build"


def test_deep_nesting_is_decoded_and_what_hooks_cannot_take_is_denied_naming_the_guard(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    # Far past what a recursive decoder follows: the call is read, and denied, naming the guard and why.
    body = json.dumps({**PRE, "tool_input": {"command": "ls"}})[:-1] + f', "deep": {nested(5000)}}}'
    status, out = status_and_body(ep.request(body.encode()))
    assert status == 200, out
    reason = deny_of(out)
    assert "'no-rm'" in reason and "nested more than 512 levels" in reason, reason
    assert "no-rm" in json.loads(out)["systemMessage"]
    assert seen_rows(seen) == []  # it never reached the guard
    # Within what hooks take, a deep input reaches the guard, which decides.
    deep = {"command": "rm -rf deep", "tree": json.loads(nested(400))}
    status, out = status_and_body(ep.request(json.dumps({**PRE, "tool_input": deep}).encode()))
    assert status == 200 and deny_of(out) == "no recursive deletes", out
    assert seen_rows(seen)[-1]["payload"]["args"]["tree"] == json.loads(nested(400))


def test_an_input_that_cannot_be_read_is_denied_when_a_guard_is_configured(env: Env, daemon_factory, tmp_path: Path) -> None:
    guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    for body in (b"not json", b"[1, 2]", b'{"tool_name": "Bash", "tool_input": {"command": "rm -rf /"'):
        status, out = status_and_body(ep.request(body))
        assert status == 200, (body, out)
        reason = deny_of(out)
        assert "'no-rm'" in reason and "cannot be read" in reason, reason
    # Codex's endpoint answers in Codex's format.
    response = ep.raw(
        f"POST /codex/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n"
        "Content-Length: 8\r\nConnection: close\r\n\r\nnot json".encode()
    )
    status, out = status_and_body(response)
    assert status == 200 and "'no-rm'" in deny_of(out), out
    # An event that decides nothing keeps its error.
    assert status_and_body(ep.request(b"not json", "Notification"))[0] == 400


def test_with_no_guard_configured_an_unreadable_input_goes_ahead_and_says_so(env: Env, daemon_factory) -> None:
    ep = endpoint(daemon_factory())
    status, out = status_and_body(ep.request(b"not json"))
    assert status == 200, out
    answer = json.loads(out)
    assert "hookSpecificOutput" not in answer and "no hookd guard is configured for PreToolUse" in answer["systemMessage"]


def test_a_body_that_never_arrives_on_a_deciding_event_is_denied(env: Env, daemon_factory, tmp_path: Path) -> None:
    guarded(env, tmp_path)
    ep = endpoint(daemon_factory("--http-request-timeout", "0.5"))
    with socket.create_connection(("127.0.0.1", ep.port), timeout=HANG_GUARD) as s:
        head = f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n"
        s.sendall(head.encode() + b"Content-Length: 1000\r\n\r\n{")  # and never the rest
        rest = b""
        while chunk := s.recv(4096):
            rest += chunk
    status, out = status_and_body(rest)
    assert status == 200 and "'no-rm'" in deny_of(out), rest


SLOW_GUARD = """
import os, sys, time
sys.stdin.read()
open(os.environ["STARTED"], "w").close()
time.sleep(60)
"""


def test_a_call_cut_short_by_the_daemon_stopping_is_denied(env: Env, daemon_factory, tmp_path: Path) -> None:
    guard = write_script(tmp_path / "slow.py", SLOW_GUARD)
    env.write_global_hooks(
        f"""
        hooks:
          - name: slow-guard
            point: tool.approval.pre
            type: decision
            command: {guard}
            timeout: 120
            enabled: true
        """
    )
    started = tmp_path / "started"
    env.env["STARTED"] = str(started)
    daemon = daemon_factory("--drain", "0.5")
    ep = endpoint(daemon)
    with socket.create_connection(("127.0.0.1", ep.port), timeout=HANG_GUARD) as s:
        body = json.dumps(PRE).encode()
        head = (
            f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        s.sendall(head.encode() + body)
        # The guard is running before the daemon is told to stop.
        deadline = time.monotonic() + HANG_GUARD
        while not started.exists():
            assert time.monotonic() < deadline, "the guard never started"
            time.sleep(0.02)
        daemon.signal(signal.SIGTERM)
        rest = b""
        while chunk := s.recv(4096):
            rest += chunk
    status, out = status_and_body(rest)
    assert status == 200, rest
    reason = deny_of(out)
    assert "'slow-guard'" in reason and "stopped" in reason, reason


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Endpoint:
    """One daemon with a guard for the property test (hypothesis runs many examples against it)."""
    from ..conftest import DaemonProcess, make_env

    root = tmp_path_factory.mktemp("unhandled")
    env = make_env(root)
    guarded(env, root)
    daemon = DaemonProcess(env).start()
    yield endpoint(daemon)
    daemon.kill()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=st.one_of(
        st.binary(max_size=300),
        st.text(max_size=200).map(str.encode),
        st.recursive(st.none() | st.text(), st.lists, max_leaves=20).map(lambda v: json.dumps(v).encode()),
    )
)
def test_whatever_body_a_pre_tool_use_carries_it_is_answered_200(shared: Endpoint, body: bytes) -> None:
    status, out = status_and_body(shared.request(body))
    assert status == 200, (body, out)
    answer = json.loads(out) if out else {}
    if not answer.get("hookSpecificOutput"):
        return  # read and answered by the guard (an abstention), or it went ahead with a notice
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
