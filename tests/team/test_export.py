"""Export of every bus event to the team's JetStream stream, against a real nats-server."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from hookd.events import journal_files
from tests.conftest import DaemonProcess

from .conftest import NatsServer, init_team, make_team_env, stream_messages

# Real servers and daemons, killed and restarted: a loaded machine needs more than the default bound.
pytestmark = pytest.mark.timeout(300)

POINT = "custom.team.probe"


def wait_until(predicate, timeout: float = 60.0, what: str = "condition", state=None):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}" + (state() if state is not None else ""))


def where(d: DaemonProcess, state: Path):  # type: ignore[no-untyped-def]
    """What the export and the journal looked like when a wait ran out, for the failure message."""

    def describe() -> str:
        try:
            info, newest = export_info(d)
        except Exception as exc:  # the daemon itself may be what went wrong
            info, newest = f"status failed: {exc}", None
        seqs = journal_seqs(state)
        tail = "\n".join(d.log().splitlines()[-40:])
        last = max(seqs, default=None)
        return f"\nexport: {info}\nnewest seq: {newest}; journal: {len(seqs)} lines, last seq {last}\ndaemon log:\n{tail}"

    return describe


def export_info(d: DaemonProcess):  # type: ignore[no-untyped-def]
    with d.client() as c:
        st = c.status()
    return st.team.export if st.team else None, st.events


def drained(d: DaemonProcess) -> bool:
    info, newest = export_info(d)
    return info is not None and info.state == "exporting" and info.acked >= newest - 2 and info.lag <= 2


def journal_seqs(state: Path) -> list[int]:
    return [ev.seq for ev in journal_files.read(str(state / "hookd" / "events.jsonl"))]


def probes(state: Path) -> int:
    """The test's own calls in the journal."""
    return sum(1 for ev in journal_files.read(str(state / "hookd" / "events.jsonl")) if ev.kind in ("emit", "decide"))


def caught_up(d: DaemonProcess, state: Path) -> bool:
    """Every event numbered so far is in the journal (its writer gets events in batches, up to
    250 ms late) and exported from it."""
    if not drained(d):
        return False
    info, newest = export_info(d)
    seqs = journal_seqs(state)
    return bool(seqs) and max(seqs) >= newest and info.acked >= max(seqs)


def stop_events(state: Path) -> set[int]:
    stopping = {"hookd.daemon.stopping", "hookd.daemon.stopped"}
    return {ev.seq for ev in journal_files.read(str(state / "hookd" / "events.jsonl")) if ev.point in stopping}


def exported(server: NatsServer) -> list[tuple[str, int, str]]:
    return [(h["Hookd-Daemon"], int(h["Hookd-Seq"]), subject) for subject, h, _ in stream_messages(server)]


def test_events_are_exported_in_seq_order_with_identity_and_subject(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "alice", nats_server)
    d = DaemonProcess(env).start()
    try:
        with d.client() as c:
            for i in range(40):
                c.emit(POINT, {"i": i})
        wait_until(lambda: caught_up(d, env.state), what="the export to catch up")
        info, _ = export_info(d)
    finally:
        d.stop()
    messages = stream_messages(nats_server)
    seqs = [int(h["Hookd-Seq"]) for _, h, _ in messages]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # What the daemon said while stopping waits in the journal for its next start.
    assert set(journal_seqs(env.state)) - set(seqs) <= stop_events(env.state)
    emitted = [(s, h, body) for s, h, body in messages if body["point"] == POINT]
    assert [body["payload"]["i"] for _, _, body in emitted] == list(range(40))
    subject, headers, body = emitted[0]
    assert subject == f"hookd.box_example.alice.{POINT}"
    assert headers["Hookd-Daemon"] == info.identity and headers["Hookd-Host"] == "box.example" and headers["Hookd-User"] == "alice"
    assert headers["Nats-Msg-Id"] == f"{info.identity}:{body['seq']}"
    assert any(body["point"] == "hookd.export.started" for _, _, body in messages)


def test_server_and_hookd_killed_mid_export_lose_nothing_and_repeat_nothing(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "bob", nats_server)
    d = DaemonProcess(env).start()
    with d.client() as c:
        for i in range(300):
            c.emit(POINT, {"i": i, "phase": "before"})
        nats_server.kill()  # the server dies mid-stream
        for i in range(300):
            c.emit(POINT, {"i": i, "phase": "down"})
        assert c.decide("tool.execute.before", {"args": {"command": "ls"}}).errors == []
    wait_until(lambda: export_info(d)[0].state == "failing", what="the exporter to see the server gone")
    nats_server.start()
    with d.client() as c:
        for i in range(2000):
            c.emit(POINT, {"i": i, "phase": "after"})
    # Once the journal (the outbox) holds them all, hookd dies hard while it drains the backlog:
    # what the server acknowledged may not be recorded yet. Every emit of the test, counted by
    # itself: a count of lines (hookd's own events among them) can be reached while the last
    # emits still wait to be written, and a hard kill loses those (docs/events.md).
    wait_until(lambda: probes(env.state) == 2601, what="the journal to hold every event")
    d.signal(signal.SIGKILL)
    d.proc.wait()  # type: ignore[union-attr]
    d = DaemonProcess(env).start()
    try:
        wait_until(lambda: caught_up(d, env.state), 120, "the backlog to drain", where(d, env.state))
    finally:
        d.stop()
    got = exported(nats_server)
    keys = [(daemon, seq) for daemon, seq, _ in got]
    assert len(keys) == len(set(keys)), "an event was stored twice"
    journal = journal_seqs(env.state)
    missing = set(journal) - {seq for _, seq in keys}
    assert missing <= stop_events(env.state), f"events lost: {sorted(missing)[:10]}"
    assert len({daemon for daemon, _ in keys}) == 1
    phases = [body["payload"].get("phase") for _, _, body in stream_messages(nats_server) if body["point"] == POINT]
    assert phases.count("before") == 300 and phases.count("down") == 300 and phases.count("after") == 2000


def test_a_record_behind_the_server_sends_again_and_the_server_drops_the_repeats(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "carol", nats_server)
    d = DaemonProcess(env).start()
    with d.client() as c:
        for i in range(100):
            c.emit(POINT, {"i": i})
    wait_until(lambda: drained(d), what="the export to catch up")
    d.signal(signal.SIGKILL)
    d.proc.wait()  # type: ignore[union-attr]
    before = exported(nats_server)
    record = env.state / "hookd" / "team" / "export.json"
    data = json.loads(record.read_text())
    data["acked"] = 1  # as if every acknowledgement after the first had been lost with the process
    record.write_text(json.dumps(data))
    d = DaemonProcess(env).start()
    try:
        wait_until(lambda: caught_up(d, env.state), what="the export to catch up again")
    finally:
        d.stop()
    after = exported(nats_server)
    keys = [(daemon, seq) for daemon, seq, _ in after]
    assert len(keys) == len(set(keys))
    assert after[: len(before)] == before
    assert {seq for _, seq, _ in before} <= {seq for _, seq in keys}


def test_outage_is_reported_decides_go_on_and_the_backlog_drains(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "dave", nats_server)
    d = DaemonProcess(env).start()
    try:
        wait_until(lambda: drained(d), what="the export to start")
        nats_server.kill()
        with d.client() as c:
            for i in range(200):
                assert c.decide("tool.execute.before", {"args": {"command": f"echo {i}"}}).decision is None
        info = wait_until(lambda: (i := export_info(d)[0]).state == "failing" and i, what="the failure in status")
        assert info.error and info.lag >= 200
        nats_server.start()
        wait_until(lambda: drained(d), 120, "the backlog to drain")
        # The failure and the recovery are events like any other: on the bus, and exported in turn.
        wanted = {"hookd.export.failing", "hookd.export.resumed"}
        wait_until(lambda: wanted <= {body["point"] for _, _, body in stream_messages(nats_server)}, what="the export's own events")
    finally:
        d.stop()
    points = [body["point"] for _, _, body in stream_messages(nats_server)]
    assert points.count("tool.execute.before") == 200
