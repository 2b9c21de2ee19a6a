"""The exporter's own process: restarted when it dies, gone when the daemon goes, and what it
exported meanwhile neither lost nor stored twice."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest

from hookd.events import journal_files
from tests.conftest import DaemonProcess

from .conftest import NatsServer, init_team, make_team_env, stream_messages, write_team_settings
from .test_export import POINT, caught_up, drained, exported, journal_seqs, probes, stop_events, wait_until, where

pytestmark = pytest.mark.timeout(300)


def export_processes(pid: int) -> list[int]:
    """The daemon's children that are the exporter's process."""
    out = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            children = Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
        except OSError:
            continue
        for child in children:
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"hookd.team.exportproc" in cmdline:
                out.append(int(child))
    return out


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie is gone too, as far as exporting goes: it waits only for its parent to reap it.
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


def test_the_exporter_process_killed_mid_stream_is_started_again_and_loses_nothing(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "erin", nats_server)
    d = DaemonProcess(env).start()
    try:
        assert d.proc is not None
        first = wait_until(lambda: export_processes(d.proc.pid), what="the exporter's process")  # type: ignore[union-attr]
        with d.client() as c:
            for i in range(500):
                c.emit(POINT, {"i": i})
                if i == 250:
                    os.kill(first[0], signal.SIGKILL)
        second = wait_until(lambda: [p for p in export_processes(d.proc.pid) if p != first[0]], what="a new exporter process")  # type: ignore[union-attr]
        assert second and first[0] not in second
        wait_until(lambda: caught_up(d, env.state), 120, "the export to catch up")
    finally:
        d.stop()
    keys = [(daemon, seq) for daemon, seq, _ in exported(nats_server)]
    assert len(keys) == len(set(keys)), "an event was stored twice"
    missing = set(journal_seqs(env.state)) - {seq for _, seq in keys}
    assert missing <= stop_events(env.state), f"events lost: {sorted(missing)[:10]}"
    emitted = [body["payload"]["i"] for _, _, body in stream_messages(nats_server) if body["point"] == POINT]
    assert emitted == list(range(500))
    # The bus heard of it, with why.
    failing = [ev for ev in journal_files.read(str(env.state / "hookd" / "events.jsonl")) if ev.point == "hookd.export.failing"]
    assert any("process exited" in str(ev.payload.get("error")) for ev in failing)


@pytest.mark.parametrize("how", ["stop", "sigkill"])
def test_the_exporter_process_ends_with_the_daemon(tmp_path: Path, nats_server: NatsServer, how: str) -> None:
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "frank", nats_server)
    d = DaemonProcess(env).start()
    try:
        assert d.proc is not None
        child = wait_until(lambda: export_processes(d.proc.pid), what="the exporter's process")[0]  # type: ignore[union-attr]
        with d.client() as c:
            for i in range(50):
                c.emit(POINT, {"i": i})
        wait_until(lambda: drained(d), what="the export to catch up")
        if how == "sigkill":
            d.signal(signal.SIGKILL)
            d.proc.wait()
        else:
            assert d.stop() == 0
        # Its stdin ended with the daemon: it records what the server has and exits.
        wait_until(lambda: gone(child), 30, "the exporter's process to exit")
    finally:
        d.stop()


def unsent(pid: int, port: int) -> int:
    """Bytes the process has written to its connection to ``port`` that the peer's kernel has not taken."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    total = 0
    for row in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        cols = row.split()
        if cols[9] in inodes and int(cols[2].rsplit(":", 1)[1], 16) == port:
            total += int(cols[4].split(":")[0], 16)
    return total


def test_an_exporter_stuck_on_a_server_that_stopped_reading_still_ends_with_the_daemon(tmp_path: Path, nats_server: NatsServer) -> None:
    # The NATS client swallows a cancellation that lands while it waits for room to write, and
    # goes on publishing: an exporter that only asks once to stop outlives a killed daemon,
    # holding the record's lock, and the next daemon exports nothing.
    init_team(nats_server, tmp_path)
    env = make_team_env(tmp_path, "gina", nats_server)
    write_team_settings(env, nats_server, batch=256)
    d = DaemonProcess(env).start()
    server = nats_server.proc
    assert server is not None
    child = 0
    try:
        assert d.proc is not None
        child = wait_until(lambda: export_processes(d.proc.pid), what="the exporter's process")[0]  # type: ignore[union-attr]
        wait_until(lambda: drained(d), what="the export to start")
        # The exporter is held while the events reach the journal, so its first read after the
        # server stopped finds a whole batch (a first batch of a few events would only wait for
        # acknowledgements, then for the stream's info, and never fill the sockets).
        os.kill(child, signal.SIGSTOP)
        os.kill(server.pid, signal.SIGSTOP)  # the server stops reading; its connection stays open
        blob = "x" * 40_000
        with d.client() as c:
            for i in range(256):  # one batch, far more than the sockets between them hold
                c.emit(POINT, {"i": i, "blob": blob})
        wait_until(lambda: probes(env.state) == 256, what="the journal to hold every event")
        os.kill(child, signal.SIGCONT)
        # The exporter has filled the sockets to the server and waits for room to write more.
        wait_until(lambda: unsent(child, nats_server.port) > 256 << 10, what="the exporter to be stuck writing")
        d.signal(signal.SIGKILL)
        d.proc.wait()
        wait_until(lambda: gone(child), 30, "the exporter's process to exit")
        d = DaemonProcess(env).start()
        os.kill(server.pid, signal.SIGCONT)
        wait_until(lambda: caught_up(d, env.state), 120, "the backlog to drain", where(d, env.state))
    finally:
        for pid in (server.pid, child):
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
        d.stop()
    keys = [(daemon, seq) for daemon, seq, _ in exported(nats_server)]
    assert len(keys) == len(set(keys)), "an event was stored twice"
    emitted = [body["payload"]["i"] for _, _, body in stream_messages(nats_server) if body["point"] == POINT]
    assert emitted == list(range(256))
