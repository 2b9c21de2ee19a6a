"""The calls as OpenTelemetry spans, sent by the exporter's process to a real OTLP/HTTP receiver
(h11 on 127.0.0.1, decoding what it gets with the OpenTelemetry protobuf definitions)."""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from tests.conftest import DaemonProcess, Env, make_env

from .test_export import wait_until

h11 = pytest.importorskip("h11")
trace_service = pytest.importorskip("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

pytestmark = pytest.mark.timeout(300)


class Receiver:
    """An OTLP/HTTP traces endpoint: every POST body decoded as an ExportTraceServiceRequest.
    The first ``refuse`` requests are answered 503 (the collector is overloaded). Until it is
    opened, its port refuses connections (the collector is down)."""

    def __init__(self, refuse: int = 0) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.refuse = refuse
        self.requests: list[Any] = []
        self.refused = 0
        self.paths: list[str] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def spans(self) -> list[Any]:
        with self.lock:
            return [span for req in self.requests for rs in req.resource_spans for ss in rs.scope_spans for span in ss.spans]

    def resources(self) -> list[dict[str, Any]]:
        with self.lock:
            return [{a.key: a.value.string_value for a in rs.resource.attributes} for req in self.requests for rs in req.resource_spans]

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        with conn:
            http = h11.Connection(h11.SERVER)
            body = bytearray()
            target = ""
            while True:
                event = http.next_event()
                if event is h11.NEED_DATA:
                    data = conn.recv(65536)
                    if not data:
                        return
                    http.receive_data(data)
                    continue
                if isinstance(event, h11.Request):
                    target = event.target.decode()
                    body.clear()
                elif isinstance(event, h11.Data):
                    body += event.data
                elif isinstance(event, h11.EndOfMessage):
                    status, reply = self._answer(target, bytes(body))
                    headers = [("content-type", "application/x-protobuf"), ("content-length", str(len(reply)))]
                    conn.sendall(http.send(h11.Response(status_code=status, headers=headers)))
                    conn.sendall(http.send(h11.Data(data=reply)) + http.send(h11.EndOfMessage()))
                    if http.our_state is h11.MUST_CLOSE:
                        return
                    http.start_next_cycle()
                elif isinstance(event, h11.ConnectionClosed):
                    return

    def _answer(self, target: str, body: bytes) -> tuple[int, bytes]:
        with self.lock:
            self.paths.append(target)
            if self.refused < self.refuse:
                self.refused += 1
                return 503, b""
            request = trace_service.ExportTraceServiceRequest()
            request.ParseFromString(body)
            self.requests.append(request)
        return 200, trace_service.ExportTraceServiceResponse().SerializeToString()

    def open(self) -> None:
        self.sock.listen(16)
        self.thread.start()

    def __enter__(self) -> Receiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        r.open()
        yield r


def attrs(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for a in span.attributes:
        v = a.value
        out[a.key] = v.string_value if v.HasField("string_value") else v.int_value if v.HasField("int_value") else v
    return out


GUARD = """\
import json, sys
payload = json.load(sys.stdin)
if "rm -rf" in json.dumps(payload):
    print(json.dumps({"decision": "deny", "reason": "no rm -rf"}))
"""


def otel_env(tmp_path: Path, name: str, endpoint: str) -> Env:
    env = make_env(tmp_path / name)
    script = tmp_path / "guard.py"
    script.write_text(GUARD)
    env.write_global_hooks(
        f"""\
        hooks:
          - name: broken
            point: tool.execute.before
            type: decision
            enabled: true
            command: {sys.executable}
            args: ["-c", "import sys; sys.exit(3)"]
            on_error: continue
          - name: no-rm-rf
            point: tool.execute.before
            type: decision
            priority: -10
            enabled: true
            command: {sys.executable}
            args: [{str(script)!r}]
        """
    )
    conf = env.config / "hookd" / "team.toml"
    conf.write_text(f'host = "box.example"\nuser = "{name}"\n[otel]\nendpoint = "{endpoint}"\nservice_name = "hookd-test"\n')
    return env


def decide_spans(r: Receiver) -> list[Any]:
    return [s for s in r.spans() if s.name == "decide tool.execute.before"]


def test_decides_become_spans_with_a_child_per_hook_and_genai_attributes(tmp_path: Path, receiver: Receiver) -> None:
    env = otel_env(tmp_path, "alice", receiver.endpoint)
    d = DaemonProcess(env).start()
    try:
        with d.client() as c:
            payload = {"toolName": "bash", "toolCallId": "call-1", "args": {"command": "rm -rf /"}}
            out = c.decide("tool.execute.before", payload, session="s-1")
            assert out.decision == "deny"
            assert c.decide("tool.execute.before", {"toolName": "read", "args": {"path": "x"}}, session="s-1").decision is None
            c.emit("tool.execute.after", {"toolName": "read"}, session="s-1")
        wait_until(lambda: len(decide_spans(receiver)) >= 2, what="the decide spans")
        wait_until(lambda: any(s.name == "emit tool.execute.after" for s in receiver.spans()), what="the emit span")
    finally:
        d.stop()
    assert set(receiver.paths) == {"/v1/traces"}
    assert {"service.name": "hookd-test", "host.name": "box.example", "user.name": "alice"}.items() <= receiver.resources()[0].items()
    spans = receiver.spans()
    by_id = {s.span_id: s for s in spans}
    denied, allowed = sorted(decide_spans(receiver), key=lambda s: attrs(s)["hookd.seq"])
    a = attrs(denied)
    assert a["gen_ai.operation.name"] == "execute_tool" and a["gen_ai.tool.name"] == "bash" and a["gen_ai.tool.call.id"] == "call-1"
    assert a["gen_ai.conversation.id"] == "s-1" and a["hookd.decision"] == "deny" and a["hookd.decided_by"] == "no-rm-rf"
    assert a["hookd.reason"] == "no rm -rf" and a["hookd.errors"] == 1
    assert denied.parent_span_id == b"" and denied.end_time_unix_nano >= denied.start_time_unix_nano > 0
    children = [s for s in spans if s.parent_span_id == denied.span_id]
    assert {s.name for s in children} == {"hook broken", "hook no-rm-rf"}
    for child in children:
        assert child.trace_id == denied.trace_id and by_id[child.parent_span_id] is denied
    roles = {attrs(s)["hookd.hook.name"]: (attrs(s)["hookd.hook.role"], s.status.code) for s in children}
    assert roles["broken"][0] == "failed" and roles["broken"][1] == 2  # STATUS_CODE_ERROR
    assert roles["no-rm-rf"][0] == "decided"
    decider = attrs(next(s for s in children if s.name == "hook no-rm-rf"))
    assert decider["hookd.hook.scope"] == "global" and decider["hookd.hook.decision"] == "deny"
    # Each hook is timed on its own, one after the other in chain order, inside its call.
    assert {attrs(s)["hookd.hook.timing"] for s in children} == {"own"}
    first, second = sorted(children, key=lambda s: s.start_time_unix_nano)
    assert (first.name, second.name) == ("hook broken", "hook no-rm-rf")
    assert denied.start_time_unix_nano <= first.start_time_unix_nano <= first.end_time_unix_nano <= second.start_time_unix_nano
    assert second.end_time_unix_nano <= denied.end_time_unix_nano
    # The allowed call: the broken hook failed in it too, the guard ran and let it through.
    b = attrs(allowed)
    assert "hookd.decision" not in b and b["gen_ai.tool.name"] == "read"
    under = {s.name: attrs(s) for s in spans if s.parent_span_id == allowed.span_id}
    assert under["hook broken"]["hookd.hook.role"] == "failed"
    assert under["hook no-rm-rf"]["hookd.hook.role"] == "ran" and "hookd.hook.decision" not in under["hook no-rm-rf"]


def test_a_collector_down_then_refusing_gets_every_span_once_it_answers(tmp_path: Path) -> None:
    with Receiver(refuse=2) as r:
        env = otel_env(tmp_path, "bob", r.endpoint)
        journal = env.state / "hookd" / "events.jsonl"
        d = DaemonProcess(env).start()
        try:
            with d.client() as c:
                for i in range(30):
                    c.decide("tool.execute.before", {"toolName": "bash", "args": {"command": f"echo {i}"}})
            # Down: the exporter gives up on the batch for now and the bus hears it.
            wait_until(lambda: journal.exists() and '"hookd.otel.failing"' in journal.read_text(), 120, "the failure on the bus")
            r.open()
            wait_until(lambda: len(decide_spans(r)) >= 30, 120, "every decide's span")
            wait_until(lambda: '"hookd.otel.resumed"' in journal.read_text(), 60, "the recovery on the bus")
        finally:
            d.stop()
        assert r.refused == 2  # the overloaded answers were retried, and those spans were not lost
        seqs = [attrs(s)["hookd.seq"] for s in decide_spans(r)]
        assert len(seqs) == 30 and len(set(seqs)) == 30


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("[otel]\n", "`endpoint` must be"),
        ('[otel]\nendpoint = "127.0.0.1:4318"\n', "`endpoint` must be"),
        ('[otel]\nendpoint = "http://x/v1/traces"\nbatch = 0\n', "between 1 and 4096"),
        ('[otel]\nendpoint = "http://x/v1/traces"\nwhat = 1\n', "unknown setting"),
        ('[otel]\nendpoint = "http://x/v1/traces"\n[export]\nenabled = true\n', "needs `servers`"),
    ],
)
def test_otel_settings_are_checked(tmp_path: Path, text: str, error: str) -> None:
    from hookd.team import settings

    with pytest.raises(settings.TeamConfigError, match=error):
        settings.parse(text, str(tmp_path / "team.toml"))


def test_otel_alone_needs_no_nats_and_its_headers_file_must_be_private(tmp_path: Path) -> None:
    from hookd.team import settings

    headers = tmp_path / "otel.headers"
    headers.write_text("# the collector's key\nAuthorization: Bearer abc\nX-Team: sec\n")
    headers.chmod(0o644)
    text = '[otel]\nendpoint = "https://collector.example/v1/traces"\nheaders_file = "otel.headers"\n'
    with pytest.raises(settings.TeamConfigError, match="chmod 600"):
        settings.parse(text, str(tmp_path / "team.toml"))
    headers.chmod(0o600)
    s = settings.parse(text, str(tmp_path / "team.toml"))
    assert s.servers == [] and not s.export and not s.guards
    assert s.otel is not None and s.otel.headers == {"Authorization": "Bearer abc", "X-Team": "sec"}
    headers.write_text("no colon here\n")
    with pytest.raises(settings.TeamConfigError, match="line 1"):
        settings.parse(text, str(tmp_path / "team.toml"))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@examples(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    payload=st.dictionaries(st.sampled_from(["toolName", "tool", "toolCallId", "args", "x"]), json_values, max_size=5),
    session=json_values,
    decided_by=json_values | st.fixed_dictionaries({"name": json_values, "scope": json_values}),
    errors=json_values,
    error_payload=json_values | st.fixed_dictionaries({"point": st.just("tool.execute.before"), "hook": json_values}),
    runs=json_values
    | st.lists(
        st.fixed_dictionaries(
            {"hook": json_values | st.fixed_dictionaries({"name": json_values, "scope": json_values}), "ms": json_values},
            optional={"error": json_values, "skipped": json_values, "shadow": json_values, "decision": json_values},
        ),
        max_size=4,
    ),
)
def test_any_journal_event_makes_spans_and_never_raises(
    payload: Any, session: Any, decided_by: Any, errors: Any, error_payload: Any, runs: Any
) -> None:
    from hookd.team.otelspans import SpanBuilder

    b = SpanBuilder("hookd", "h", "u")
    hook_error = {"kind": "internal", "point": "hookd.hook.error", "session": session, "payload": error_payload}
    call = {"seq": 2, "time": 1.0, "kind": "decide", "point": "tool.execute.before", "session": session, "payload": payload}
    call |= {"decided_by": decided_by, "errors": errors, "duration": errors, "hooks": runs}
    b.add(hook_error)
    b.add(call)
    spans = b.take()
    assert [s.name for s in spans if s.parent is None] == ["decide tool.execute.before"]
    b.shutdown()
