"""A real daemon on its socket: a broken global file at start, malformed and oversized frames, version
mismatches, pipelining, vanishing clients, the CLI against it, stale sockets, signals, status, peers
of another user and hooks' stderr in its log. Scopes, toggles and the registry's errors, in process:
tests/daemon/test_scopes_and_registry.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap

import msgspec
import pytest
from hookd_client import Client, DaemonNotRunning
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec, request_codec

from ..conftest import HOOKD, DaemonProcess, write_script


def decider(tmp_path, name: str, answer: dict | None):
    body = f"import json, sys; sys.stdin.read(); print(json.dumps({answer!r}))" if answer else "import sys; sys.stdin.read()"
    return write_script(tmp_path / f"{name}.py", body)


def spec(name: str, command, priority: int = 0, point: str = "tool.approval.pre", type: str = "decision", **kw) -> dict:
    return {"name": name, "point": point, "type": type, "command": str(command), "priority": priority, "enabled": True, **kw}


def test_broken_global_file_at_start_is_reported_and_daemon_serves(env, daemon_factory):
    path = env.write_global_hooks(
        """
        hooks:
          - name: x
            point: tool.aproval.pre
            type: decision
            command: /bin/true
            enabled: true
        """
    )
    d = daemon_factory()
    with Client(d.socket) as c:
        assert c.status().hooks == 0
    log = d.log()
    assert str(path) in log and "tool.approval.pre" in log and "'x'" in log


def raw_connection(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    return s


def read_reply(s: socket.socket, dec: FrameDecoder) -> m.Reply:
    codec = reply_codec()
    while True:
        data = s.recv(65536)
        assert data, "connection closed"
        bodies = dec.feed(data)
        if bodies:
            return codec.decode(bodies[0])


def test_malformed_frames_get_errors_and_the_connection_stays_usable(daemon):
    s = raw_connection(daemon.socket)
    dec = FrameDecoder()
    codec = request_codec()
    # before hello
    s.sendall(codec.encode(m.StatusRequest(5)))
    reply = read_reply(s, dec)
    assert isinstance(reply, m.Error) and reply.code == "hello_required" and reply.id == 5
    s.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "raw")))
    assert isinstance(read_reply(s, dec), m.Welcome)
    for garbage in (b"\xc1", b"\x93\x01\x02\x03", msgspec.msgpack.encode({"type": "decide", "id": 8, "point": 3})):
        s.sendall(struct.pack(">I", len(garbage)) + garbage)
        reply = read_reply(s, dec)
        assert isinstance(reply, m.Error) and reply.code == "bad_request"
    assert reply.id == 8 and "point" in reply.message
    s.sendall(codec.encode(m.StatusRequest(9)))
    reply = read_reply(s, dec)
    assert isinstance(reply, m.Status) and reply.id == 9
    s.close()


def test_oversized_frame_is_refused_without_allocating_and_connection_closed(daemon):
    s = raw_connection(daemon.socket)
    dec = FrameDecoder()
    s.sendall(request_codec().encode(m.Hello(1, m.PROTOCOL_VERSION, "raw")))
    read_reply(s, dec)
    s.sendall(struct.pack(">I", 0xFFFFFFF0) + b"xx")
    reply = read_reply(s, dec)
    assert isinstance(reply, m.Error) and reply.code == "frame_too_large" and "1048576" in reply.message
    assert s.recv(10) == b""
    with Client(daemon.socket) as c:  # the daemon keeps serving
        assert c.status().connections == 1


def test_version_mismatch_is_a_clear_error(daemon):
    s = raw_connection(daemon.socket)
    s.sendall(request_codec().encode(m.Hello(1, 99, "future-client")))
    reply = read_reply(s, FrameDecoder())
    assert isinstance(reply, m.Error) and reply.code == "version_mismatch"
    assert "protocol 1" in reply.message and "99" in reply.message


def test_pipelined_requests_are_answered_by_id(daemon):
    s = raw_connection(daemon.socket)
    codec = request_codec()
    batch = [codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "raw"))]
    batch += [codec.encode(m.Decide(i, "tool.approval.pre", {"i": i})) for i in range(2, 502)]
    s.sendall(b"".join(batch))
    dec = FrameDecoder()
    rc = reply_codec()
    got: list[int] = []
    while len(got) < 501:
        got += [rc.decode(b).id for b in dec.feed(s.recv(65536))]
    assert sorted(got) == list(range(1, 502))


def test_client_vanishing_mid_call_does_not_hurt_the_daemon(daemon, tmp_path):
    slow = write_script(tmp_path / "slow.py", "import time, sys; sys.stdin.read(); time.sleep(1); print('{}')")
    with Client(daemon.socket) as c:
        c.register(spec("slow", slow))
    s = raw_connection(daemon.socket)
    codec = request_codec()
    s.sendall(codec.encode(m.Hello(1, m.PROTOCOL_VERSION, "raw")) + codec.encode(m.Decide(2, "tool.approval.pre")))
    s.close()
    with Client(daemon.socket) as c:
        assert c.decide("tool.approval.pre").decision is None


def test_cli_reports_daemon_not_running(env):
    r = env.hookd("status")
    assert r.returncode == 3  # the daemon is not reachable (docs/cli.md, exit codes)
    assert env.socket in r.stderr and "hookd serve" in r.stderr
    with pytest.raises(DaemonNotRunning):
        Client(env.socket)


def test_cli_decide_prints_json_and_exits_zero_whatever_the_decision(env, daemon, tmp_path):
    with Client(daemon.socket) as c:
        c.register(spec("no", decider(tmp_path, "no", {"decision": "deny", "reason": "nope"})))
    r = env.hookd("decide", "tool.approval.pre", "--payload", "-", input='{"toolName": "x"}')
    assert r.returncode == 0
    out = json.loads(r.stdout)
    assert out["decision"] == "deny" and out["decided_by"]["name"] == "no"
    r = env.hookd("decide", "tool.approval.pre", "--payload", "[1, 2]")
    assert r.returncode == 2 and "JSON object" in r.stderr
    r = env.hookd("explain", "tool.approval.pre")
    assert r.returncode == 0 and "no" in r.stdout and "global" in r.stdout
    r = env.hookd("points")
    assert r.returncode == 0 and "agent.subagent.spawn.before" in r.stdout


def test_stale_socket_is_replaced_and_a_live_one_is_refused(env, daemon_factory):
    path = env.socket
    os.makedirs(os.path.dirname(path), exist_ok=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(path)
    stale.close()  # the file stays, nobody listens
    d = daemon_factory()
    with Client(d.socket) as c:
        assert c.status().pid == d.proc.pid
    second = subprocess.run([*HOOKD, "serve"], env=env.env, capture_output=True, text=True, timeout=30)
    assert second.returncode == 1
    assert "already listening" in second.stderr and path in second.stderr
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(os.path.dirname(path)).st_mode & 0o777) == "0o700"


def test_sigterm_exits_zero_and_removes_the_socket(env):
    d = DaemonProcess(env).start()
    try:
        d.signal(signal.SIGTERM)
        assert d.proc.wait(15) == 0
        assert not os.path.exists(env.socket)
    finally:
        d.kill()


def test_status_counts(env, daemon):
    with Client(daemon.socket) as c:
        c.emit("tool.execute.after", {})
        c.decide("tool.approval.pre", {})
        st = c.status()
    assert st.emits == 1 and st.decides == 1 and st.connections == 1 and st.calls >= 3
    r = env.hookd("status")
    assert "uptime:" in r.stdout
    assert textwrap


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to act as another user")
def test_peer_of_another_user_is_refused(env, daemon_factory):
    import tempfile

    sockdir = tempfile.mkdtemp(prefix="hookd-peer-")  # outside the 0700 pytest tree
    env.env["HOOKD_SOCKET"] = os.path.join(sockdir, "hookd.sock")
    daemon = daemon_factory()  # the factory stops it whatever the test's outcome
    os.chmod(daemon.socket, 0o666)  # let the other user reach the socket, so SO_PEERCRED is what refuses
    os.chmod(os.path.dirname(daemon.socket), 0o755)
    code = textwrap.dedent(
        f"""
        import os, socket, sys
        os.setgid(65534); os.setuid(65534)
        s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect({daemon.socket!r})
        try:
            s.sendall(bytes.fromhex("0000002d85a474797065a568656c6c6fa2696401a870726f746f636f6c01a6636c69656e74a464656d6fa3706964cd1092"))
            print(repr(s.recv(100)))
        except (ConnectionResetError, BrokenPipeError):
            print("reset")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() in ("b''", "reset"), out.stderr
    with Client(daemon.socket) as c:
        assert c.status().connections == 1
    assert "refused a peer of another user" in daemon.log()


def test_a_working_hooks_stderr_goes_to_the_daemon_log(daemon, tmp_path):
    chatty = write_script(tmp_path / "chatty.py", "import sys; sys.stdin.read(); sys.stderr.write('checked 3 rules\\n')")
    with Client(daemon.socket) as c:
        c.register(spec("chatty", chatty))
        assert c.decide("tool.approval.pre").decision is None
    log = daemon.log()
    assert "hook stderr" in log and "checked 3 rules" in log and "chatty" in log
