"""Claude Code's HTTP hooks answered by a real daemon over a real loopback socket: who may call,
what a call returns, and the limits."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path

from ..conftest import Env, write_script
from .httphooks import endpoint, status_and_body

PRE = {
    "session_id": "s-http",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build"},
    "tool_use_id": "toolu_1",
}

GUARD = """
import json, os, pathlib, sys
payload = json.load(sys.stdin)
with open(os.environ["SEEN"], "a") as f:
    f.write(json.dumps({"payload": payload, "project": os.environ.get("HOOKD_PROJECT_DIR", "")}) + "\\n")
if "rm -rf" in payload.get("args", {}).get("command", ""):
    print(json.dumps({"decision": "deny", "reason": "no recursive deletes"}))
"""


def guarded(env: Env, tmp_path: Path) -> Path:
    seen = tmp_path / "seen.jsonl"
    guard = write_script(tmp_path / "guard.py", GUARD)
    env.write_global_hooks(
        f"""
        hooks:
          - name: no-rm
            point: tool.approval.pre
            type: decision
            command: {guard}
            enabled: true
        """
    )
    env.env["SEEN"] = str(seen)
    return seen


def seen_rows(seen: Path) -> list[dict]:
    return [json.loads(line) for line in seen.read_text().splitlines()] if seen.exists() else []


def test_a_guard_answers_an_http_hook(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    status, body = ep.post(PRE)
    assert status == 200
    out = json.loads(body)["hookSpecificOutput"]
    assert out == {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no recursive deletes"}
    status, body = ep.post({**PRE, "tool_input": {"command": "ls"}})
    assert status == 200 and body == b""
    assert [r["payload"]["args"]["command"] for r in seen_rows(seen)] == ["rm -rf build", "ls"]


def test_the_secret_is_private(env: Env, daemon_factory) -> None:
    endpoint(daemon_factory())
    state = env.state / "hookd"
    for name in ("http-token", "http.json"):
        assert stat.S_IMODE((state / name).stat().st_mode) == 0o600, name
    assert stat.S_IMODE(state.stat().st_mode) & 0o077 == 0
    assert len((state / "http-token").read_text().strip()) >= 32


def test_callers_without_the_secret_or_from_a_web_page_are_refused(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    body = json.dumps(PRE).encode()
    assert status_and_body(ep.request(body, token="wrong"))[0] == 401
    assert status_and_body(ep.request(body, token=ep.token[:-1]))[0] == 401
    assert status_and_body(ep.request(body, token=""))[0] == 401
    no_auth = f"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
    assert status_and_body(ep.raw(no_auth + body))[0] == 401
    assert status_and_body(ep.request(body, token=f"{ep.token}, Bearer {ep.token}"))[0] == 401
    # A web page: the browser adds Origin, and a rebound DNS name arrives as another Host.
    assert status_and_body(ep.request(body, headers={"Origin": "http://127.0.0.1"}))[0] == 403
    assert status_and_body(ep.request(body, headers={"Origin": "null"}))[0] == 403
    assert status_and_body(ep.request(body, headers={"Host": f"evil.example:{ep.port}"}))[0] == 403
    assert status_and_body(ep.request(body, headers={"Host": "127.0.0.1:1"}))[0] == 403
    get = f"GET /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n\r\n"
    assert status_and_body(ep.raw(get.encode()))[0] == 405
    assert status_and_body(ep.request(body, event="../etc/passwd"))[0] in (400, 404)
    assert seen_rows(seen) == []  # no refused request reached a hook
    assert status_and_body(ep.request(body, headers={"Host": f"localhost:{ep.port}"}))[0] == 200


def test_requests_on_one_kept_alive_connection_are_answered_in_order(env: Env, daemon_factory, tmp_path: Path) -> None:
    guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", ep.port, timeout=30)
    headers = {"Authorization": f"Bearer {ep.token}", "Content-Type": "application/json"}
    answers = []
    for command in ("rm -rf a", "ls", "rm -rf b"):
        conn.request("POST", "/claude-code/PreToolUse", json.dumps({**PRE, "tool_input": {"command": command}}), headers)
        response = conn.getresponse()
        assert response.status == 200
        answers.append(response.read())
    conn.close()
    assert [bool(a) for a in answers] == [True, False, True]


def test_the_agents_environment_is_forwarded(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    project = tmp_path / "proj"
    project.mkdir()
    ep = endpoint(daemon_factory())
    status, _ = ep.post(PRE, headers={"X-Hookd-Env-CLAUDE_PROJECT_DIR": str(project)})
    assert status == 200
    assert seen_rows(seen)[-1]["project"] == str(project)


def test_an_input_over_the_limit_is_denied_never_allowed(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory("--http-max-body", str(1 << 20)))
    big = {**PRE, "tool_input": {"command": "echo " + "x" * (3 << 19)}}
    status, body = ep.post(big)
    assert status == 200
    out = json.loads(body)
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "over the endpoint's limit" in out["hookSpecificOutput"]["permissionDecisionReason"]
    assert "did not run" in out["systemMessage"]
    assert seen_rows(seen) == []
    # Under the limit, a large input reaches the guard whole.
    status, _ = ep.post({**PRE, "tool_input": {"command": "echo " + "y" * (900 << 10)}})
    assert status == 200 and len(seen_rows(seen)[-1]["payload"]["args"]["command"]) == 5 + (900 << 10)


def test_a_2_mib_input_reaches_the_guard_at_the_default_limit(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = guarded(env, tmp_path)
    ep = endpoint(daemon_factory())
    content = "z" * (2 << 20)
    status, _ = ep.post({**PRE, "tool_name": "Write", "tool_input": {"file_path": "/tmp/f", "content": content}})
    assert status == 200
    assert seen_rows(seen)[-1]["payload"]["args"]["content"] == content


def test_a_slow_request_is_cut_off(env: Env, daemon_factory) -> None:
    ep = endpoint(daemon_factory("--http-request-timeout", "0.5"))
    with socket.create_connection(("127.0.0.1", ep.port), timeout=30) as s:
        s.sendall(b"POST /claude-code/PreToolUse HTTP/1.1\r\nHost: 127.0.0.1")  # and never the rest
        rest = b""
        while chunk := s.recv(4096):
            rest += chunk
    assert rest == b"" or rest.startswith(b"HTTP/1.1 408")
    with socket.create_connection(("127.0.0.1", ep.port), timeout=30) as s:
        # An event that decides nothing (on a deciding one, test_http_hooks_unhandled: never a non-2xx).
        head = f"POST /claude-code/Notification HTTP/1.1\r\nHost: 127.0.0.1:{ep.port}\r\nAuthorization: Bearer {ep.token}\r\n"
        s.sendall(head.encode() + b"Content-Length: 1000\r\n\r\n{")  # a body that never ends
        rest = b""
        while chunk := s.recv(4096):
            rest += chunk
    assert rest.startswith(b"HTTP/1.1 408")


def test_an_oversized_head_is_refused(env: Env, daemon_factory) -> None:
    ep = endpoint(daemon_factory())
    response = ep.raw(b"POST /claude-code/PreToolUse HTTP/1.1\r\nX-Long: " + b"a" * (1 << 20) + b"\r\n\r\n")
    assert response == b"" or status_and_body(response)[0] in (400, 431)


def test_bad_hook_input_is_an_error_not_an_answer(env: Env, daemon_factory) -> None:
    # On an event that decides nothing; a deciding one is never answered non-2xx (test_http_hooks_unhandled).
    ep = endpoint(daemon_factory())
    assert status_and_body(ep.request(b"not json", "Notification"))[0] == 400
    assert status_and_body(ep.request(b"[1, 2]", "Notification"))[0] == 400


def test_the_endpoint_is_off_when_asked(env: Env, daemon_factory) -> None:
    d = daemon_factory("--http-port", "off")
    with d.client() as c:
        c.emit("custom.x", {})
    assert not (env.state / "hookd" / "http.json").exists()
    assert os.path.exists(d.socket)
