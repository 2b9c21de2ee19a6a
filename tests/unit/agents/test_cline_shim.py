"""The compiled shim for Copilot CLI and Cline: when hookd cannot be asked (--fail-closed) or its answer cannot
be used, the tool call is denied in the agent's own form, and Cline's deny, a shell command, never runs any
part of the reason, whoever wrote it (a path, the body of whatever answered on hookd's port)."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.agents import shim


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shim.compiler() is None:
        pytest.skip("no C compiler on this machine: the Copilot and Cline bridges need the shim")
    result = shim.build(tmp_path_factory.mktemp("shim"))
    assert result.path is not None, result.why
    return result.path


@pytest.fixture
def token(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text("secret\n")
    path.chmod(0o600)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def shim_run(built: str, agent: str, event: str, port: int, token: Path | str, *extra: str) -> subprocess.CompletedProcess[bytes]:
    argv = [built, event, str(port), str(token), "--agent", agent, "--timeout", "10", *extra]
    return subprocess.run(argv, input=b"{}", capture_output=True, timeout=60, check=False)


def denied_command(out: bytes) -> str:
    [command] = json.loads(out)["overrideInput"]["commands"]
    return str(command)


def test_with_hookd_down_fail_closed_denies_each_agent_s_tool_call_in_its_own_form(built: str, token: Path, tmp_path: Path) -> None:
    port = free_port()
    copilot = shim_run(built, "copilot", "preToolUse", port, token, "--fail-closed")
    answer = json.loads(copilot.stdout)
    assert answer["permissionDecision"] == "deny" and answer["permissionDecisionReason"].startswith("hookd could not be asked (")
    cline = shim_run(built, "cline", "PreToolUse", port, token, "--fail-closed")
    done = subprocess.run(["sh", "-c", denied_command(cline.stdout)], capture_output=True, text=True, cwd=tmp_path, timeout=30, check=False)
    assert done.returncode == 1 and done.stderr.startswith("blocked by hookd: hookd could not be asked (hookd is not answering")
    # Without --fail-closed, and on events that are not a tool call, the agent proceeds.
    assert shim_run(built, "cline", "PreToolUse", port, token).stdout == b""
    assert shim_run(built, "copilot", "sessionStart", port, token, "--fail-closed").stdout == b""
    assert shim_run(built, "cline", "TaskStart", port, token, "--fail-closed").stdout == b""


HOSTILE = "'; touch pwned; echo '$(touch pwned2)`touch pwned3`\"\\"


def test_a_hostile_path_in_the_reason_is_never_run(built: str, tmp_path: Path) -> None:
    where = tmp_path / "run"
    where.mkdir()
    out = shim_run(built, "cline", "PreToolUse", free_port(), str(tmp_path / HOSTILE), "--fail-closed").stdout
    done = subprocess.run(["sh", "-c", denied_command(out)], capture_output=True, text=True, cwd=where, timeout=30, check=False)
    assert done.returncode == 1 and HOSTILE in done.stderr
    assert list(where.iterdir()) == []


@pytest.fixture
def impostor() -> Iterator[int]:
    """Something on hookd's port that answers every request with a 500 whose body is shell syntax."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    body = HOSTILE.encode()

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 500 Oops\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    server.close()


def test_an_answer_that_cannot_be_used_is_denied_and_its_body_never_run(built: str, token: Path, impostor: int, tmp_path: Path) -> None:
    where = tmp_path / "run"
    where.mkdir()
    out = shim_run(built, "cline", "PreToolUse", impostor, token).stdout
    done = subprocess.run(["sh", "-c", denied_command(out)], capture_output=True, text=True, cwd=where, timeout=30, check=False)
    assert done.returncode == 1 and "hookd is running but its answer cannot be used" in done.stderr
    assert HOSTILE in done.stderr
    assert list(where.iterdir()) == []
    copilot = json.loads(shim_run(built, "copilot", "preToolUse", impostor, token).stdout)
    assert copilot["permissionDecision"] == "deny" and "HTTP 500" in copilot["permissionDecisionReason"]
