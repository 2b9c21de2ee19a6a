"""The exporter's own process: restarted when it dies, gone when the daemon goes, and what it
exported meanwhile neither lost nor stored twice."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from hookd import journal_files
from tests.conftest import DaemonProcess

from .conftest import NatsServer, init_team, make_team_env, stream_messages
from .test_export import POINT, caught_up, drained, exported, journal_seqs, stop_events, wait_until

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
