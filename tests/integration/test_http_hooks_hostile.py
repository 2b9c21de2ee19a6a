"""Hostile requests to the HTTP hook endpoint of a real daemon (hypothesis): whatever arrives, the
daemon answers with a well-formed status or closes, never lets a request without the secret reach a
hook, and keeps serving."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ..conftest import Env
from .httphooks import Endpoint, endpoint, status_and_body
from .test_http_hooks import PRE, guarded, seen_rows

HEADER_NAMES = ["Host", "Authorization", "Origin", "Content-Length", "Transfer-Encoding", "Content-Type", "X-Hookd-Env-PATH", "Connection"]
header_value = st.text(st.characters(min_codepoint=0, max_codepoint=255), max_size=40)
headers = st.lists(st.tuples(st.one_of(st.sampled_from(HEADER_NAMES), st.text(max_size=12)), header_value), max_size=8)
methods = st.sampled_from(["POST", "GET", "PUT", "OPTIONS", "post", "P OST", ""])
targets = st.one_of(
    st.sampled_from(
        ["/claude-code/PreToolUse", "/claude-code/", "/", "*", "/claude-code/Pre%00ToolUse", "http://127.0.0.1/claude-code/Stop"]
    ),
    st.text(max_size=30),
)
bodies = st.one_of(st.binary(max_size=300), st.just(json.dumps(PRE).encode()))


def send(ep: Endpoint, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", ep.port), timeout=60) as s:
        try:
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the daemon may close first on a bad head
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
        return out


def check_reply(reply: bytes) -> int | None:
    if not reply:
        return None
    assert reply.startswith(b"HTTP/1.1 "), reply[:100]
    return status_and_body(reply)[0]


def test_hostile_requests_never_reach_a_hook_without_the_secret(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory("--http-request-timeout", "1"))
    authorized = 0

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(method=methods, target=targets, fields=headers, body=bodies, with_secret=st.booleans(), with_host=st.booleans())
    @example(method="POST", target="/claude-code/PreToolUse", fields=[], body=json.dumps(PRE).encode(), with_secret=True, with_host=True)
    def attempt(method: str, target: str, fields: list[tuple[str, str]], body: bytes, with_secret: bool, with_host: bool) -> None:
        nonlocal authorized
        lines = [f"{method} {target} HTTP/1.1"]
        lines += [f"{name}: {value}" for name, value in fields]
        if with_secret:
            lines.append(f"Authorization: Bearer {ep.token}")
        if with_host:
            lines.append(f"Host: 127.0.0.1:{ep.port}")
            lines.append(f"Content-Length: {len(body)}")
        raw = "\r\n".join(lines).encode("latin-1", "replace") + b"\r\n\r\n" + body
        status = check_reply(send(ep, raw))
        if status == 200:
            # Only a request that carried the secret, exactly one Authorization, the right Host and no Origin.
            names = [n.lower() for n, _ in fields]
            assert with_secret and with_host and "authorization" not in names and "origin" not in names and "host" not in names
            authorized += 1

    attempt()
    assert authorized > 0  # the property was tested on requests that got through, not only on refusals
    rows = seen_rows(seen)
    assert len(rows) <= authorized
    status, body = ep.post(PRE)  # still serving
    assert status == 200 and json.loads(body)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_random_bytes_get_a_status_or_a_close(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory("--http-request-timeout", "1"))

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=2000))
    def attempt(data: bytes) -> None:
        assert check_reply(send(ep, data)) != 200

    attempt()
    assert seen_rows(seen) == []
    assert ep.post(PRE)[0] == 200
