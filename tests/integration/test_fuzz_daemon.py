"""Adversarial requests against one real daemon: whatever arrives, every frame gets
an answer or is dropped by rule, and the daemon keeps serving."""

from __future__ import annotations

import socket
import struct

import msgspec
import pytest
from hookd_client import Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec, request_codec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..conftest import DaemonProcess, make_env

TYPES = [
    "hello", "emit", "decide", "attach_session", "dispose_session", "dispose_project", "register", "unregister",
    "reload_user_hooks", "enable_hook", "disable_hook", "explain", "status", "list_hooks", "trust", "untrust",
    "attach_hooks", "unsubscribe", "invoke_result", "nonsense",
]  # fmt: skip
FIELDS = ["id", "point", "payload", "session", "project", "wait", "hooks", "hook", "handle", "name", "path", "call", "decision", "fresh"]

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.floats() | st.text(max_size=20) | st.binary(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
messages = st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={f: values for f in FIELDS}) | st.dictionaries(
    st.text(max_size=6), values, max_size=4
)


@pytest.fixture(scope="module")
def fuzz_daemon(tmp_path_factory):  # type: ignore[no-untyped-def]
    env = make_env(tmp_path_factory.mktemp("fuzz"))
    env.env["HOOKD_TRUST_ALL"] = "0"  # random `project` paths must not run anything found there
    d = DaemonProcess(env).start()
    yield d
    d.kill()


LAST = 2**62


def _answers(sock: socket.socket) -> list[m.Reply]:
    """Replies up to the final status request's (or until the daemon closes the connection)."""
    dec, codec, got = FrameDecoder(), reply_codec(), []
    while not any(r.id == LAST for r in got):
        data = sock.recv(65536)
        if not data:
            break
        got += [codec.decode(b) for b in dec.feed(data)]
    return got


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(messages, min_size=1, max_size=6))
def test_random_requests_never_break_the_daemon(fuzz_daemon, batch):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(fuzz_daemon.socket)
    try:
        frames = [request_codec().encode(m.Hello(1, m.PROTOCOL_VERSION, "fuzz"))]
        for msg in batch:
            try:
                body = msgspec.msgpack.encode(msg)
            except (TypeError, OverflowError):
                continue
            frames.append(struct.pack(">I", len(body)) + body)
        frames.append(request_codec().encode(m.StatusRequest(LAST)))
        sock.sendall(b"".join(frames))
        replies = _answers(sock)
        # The status request sent last is answered, unless a frame the protocol says closes the
        # connection (a hello with another version) came first.
        closed_by_rule = any(isinstance(r, m.Error) and r.code == "version_mismatch" for r in replies)
        assert closed_by_rule or isinstance(replies[-1], m.Status), replies
        assert all(not (isinstance(r, m.Error) and r.code == "internal") for r in replies), replies
    finally:
        sock.close()
    with Client(fuzz_daemon.socket) as c:
        assert c.status().pid == fuzz_daemon.proc.pid
