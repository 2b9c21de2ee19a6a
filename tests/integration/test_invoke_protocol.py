"""The invoke protocol on raw sockets: answers go only to the connection that was asked; bad frames are refused."""

from __future__ import annotations

import os
import socket
import threading

import msgspec
from hookd_client import Client
from hookd_client import messages as m
from hookd_client.framing import FrameDecoder, reply_codec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

POINT = "tool.approval.pre"


class Raw:
    """A hand-driven connection: frames out, frames in, nothing else."""

    def __init__(self, path: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(path)
        self.codec = reply_codec()
        self.decoder = FrameDecoder()
        self.inbox: list[m.Reply] = []
        self.send(m.Hello(1, m.PROTOCOL_VERSION, "raw", os.getpid()))
        assert isinstance(self.recv(), m.Welcome)

    def send(self, msg: m.Request) -> None:
        self.sock.sendall(self.codec.encode(msg))

    def send_body(self, body: bytes) -> None:
        self.sock.sendall(len(body).to_bytes(4, "big") + body)

    def recv(self) -> m.Reply:
        while not self.inbox:
            data = self.sock.recv(65536)
            assert data, "connection closed"
            self.inbox += [self.codec.decode(b) for b in self.decoder.feed(data)]
        return self.inbox.pop(0)

    def close(self) -> None:
        self.sock.close()


def test_only_the_serving_connection_can_answer_its_invoke(daemon):  # type: ignore[no-untyped-def]
    agent, intruder = Raw(daemon.socket), Raw(daemon.socket)
    spec = m.CallbackSpec(cb=42, name="raw-handler", point=POINT, type="decision")
    agent.send(m.AttachHooks(2, "s1", None, [m.CallbackEntry(spec)]))
    attached = agent.recv()
    assert isinstance(attached, m.Attached) and len(attached.handles) == 1
    with Client(daemon.socket) as caller:
        result: list[m.Outcome] = []
        t = threading.Thread(target=lambda: result.append(caller.decide(POINT, {"toolName": "x"}, session="s1")))
        t.start()
        inv = agent.recv()
        assert isinstance(inv, m.Invoke)
        assert (inv.id, inv.cb, inv.point, inv.hook, inv.kind, inv.payload, inv.session) == (
            0,
            42,
            POINT,
            "raw-handler",
            "decision",
            {"toolName": "x"},
            "s1",
        )
        intruder.send(m.InvokeResult(inv.call, m.Decision("deny", reason="forged")))
        intruder.send(m.StatusRequest(3))
        assert isinstance(intruder.recv(), m.Status)  # the forged answer got no reply and was dropped
        agent.send(m.InvokeResult(inv.call, m.Decision("allow", reason="genuine")))
        agent.send(m.InvokeResult(inv.call, m.Decision("deny", reason="duplicate")))
        t.join(20)
        assert result[0].decision == "allow" and result[0].reason == "genuine"
    agent.close()
    intruder.close()


def test_malformed_attach_hooks_get_a_clear_error(daemon):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    enc = msgspec.msgpack.Encoder()
    raw.send_body(enc.encode({"type": "attach_hooks", "id": 5, "session": "s1", "hooks": [{"kind": "callback", "spec": {"name": "x"}}]}))
    err = raw.recv()
    assert isinstance(err, m.Error) and err.id == 5 and err.code == "bad_request" and "cb" in err.message
    raw.send_body(enc.encode({"type": "attach_hooks", "id": 6, "session": "s1", "hooks": [{"kind": "lambda"}]}))
    err = raw.recv()
    assert isinstance(err, m.Error) and err.id == 6 and "lambda" in err.message
    raw.send(m.AttachHooks(7, "s1", None, [m.CallbackEntry(m.CallbackSpec(1, "x", "tool.execute.error", "decision"))]))
    err = raw.recv()
    assert isinstance(err, m.Error) and err.code == "wrong_kind"
    raw.send(m.StatusRequest(8))
    status = raw.recv()
    assert isinstance(status, m.Status) and status.sessions == 0
    raw.close()


scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20)
json_values = st.recursive(scalars, lambda c: st.lists(c, max_size=3))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["type", "call", "decision", "error", "id", "cb"]), json_values, max_size=5))
def test_unsolicited_or_garbled_invoke_results_never_hurt_the_daemon(daemon, body):  # type: ignore[no-untyped-def]
    raw = Raw(daemon.socket)
    body = {**body, "type": "invoke_result"}
    raw.send_body(msgspec.msgpack.encode(body))
    raw.send(m.StatusRequest(99))
    reply = raw.recv()
    # An invoke result gets no reply, valid or not (an invalid one fails the invocation it names,
    # if any): no stray error with id 0 reaches the client, and it keeps serving.
    assert isinstance(reply, m.Status) and reply.id == 99, reply
    raw.close()


def test_an_invalid_invoke_result_fails_its_invocation_at_once_naming_why(daemon):  # type: ignore[no-untyped-def]
    """The decide is answered now, with a hook error saying what was invalid, not after the hook timeout."""
    agent = Raw(daemon.socket)
    spec = m.CallbackSpec(cb=7, name="guard", point=POINT, type="decision", timeout=600, on_error="deny")
    agent.send(m.AttachHooks(2, "s1", None, [m.CallbackEntry(spec)]))
    assert isinstance(agent.recv(), m.Attached)
    with Client(daemon.socket, timeout=60) as caller:
        result: list[m.Outcome] = []
        t = threading.Thread(target=lambda: result.append(caller.decide(POINT, {"toolName": "x"}, session="s1")))
        t.start()
        inv = agent.recv()
        assert isinstance(inv, m.Invoke)
        agent.send_body(msgspec.msgpack.encode({"type": "invoke_result", "call": inv.call, "decision": {"decision": "block"}}))
        t.join(30)
        assert result, "the decide was not answered"
        outcome = result[0]
        assert outcome.decision == "deny"  # on_error: deny
        assert [e.code for e in outcome.errors] == ["error"], outcome.errors
        assert "invalid invoke_result" in outcome.errors[0].message and "block" in outcome.errors[0].message
    # Nothing was answered to id 0 on the serving connection: the next frame is the status reply.
    agent.send(m.StatusRequest(3))
    reply = agent.recv()
    assert isinstance(reply, m.Status) and reply.id == 3, reply
    agent.close()
