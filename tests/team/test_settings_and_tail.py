"""Team settings (credentials guarded), `hookd tail --team`, and the outbox reader."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hookd.team import settings
from hookd.team.outbox import Outbox
from tests.conftest import DaemonProcess, make_env

from .conftest import NatsServer, init_team, make_team_env, stream_messages


def test_a_credentials_file_others_can_read_is_refused(tmp_path: Path) -> None:
    creds = tmp_path / "nats.token"
    creds.write_text("s3cret\n")
    creds.chmod(0o644)
    conf = tmp_path / "team.toml"
    conf.write_text(f'servers = ["nats://127.0.0.1:1"]\ncredentials = "{creds}"\n')
    with pytest.raises(settings.TeamConfigError, match=r"readable by other users \(mode 0644\).*chmod 600"):
        settings.load(str(conf))
    creds.chmod(0o600)
    loaded = settings.load(str(conf))
    assert loaded is not None and loaded.credentials.token == "s3cret"
    creds.write_text("alice:pw\n")
    assert settings.load(str(conf)).credentials.options() == {"user": "alice", "password": "pw"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("servers = []\n", "at least one NATS server"),
        ('servers = ["nats://x"]\nbogus = 1\n', "unknown setting"),
        ('servers = ["nats://x"]\n[export]\nbatch = 0\n', "between 1 and 4096"),
        ('servers = ["nats://x"]\n[guards]\nenabled = "yes"\n', "must be a bool"),
        ("servers = [\n", "not valid TOML"),
    ],
)
def test_bad_settings_are_refused_with_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    conf = tmp_path / "team.toml"
    conf.write_text(text)
    with pytest.raises(settings.TeamConfigError, match=message):
        settings.load(str(conf))


def test_a_daemon_with_a_world_readable_credentials_file_says_so_and_exports_nothing(tmp_path: Path) -> None:
    env = make_env(tmp_path / "erin")
    creds = env.config / "hookd" / "nats.token"
    creds.parent.mkdir(parents=True)
    creds.write_text("s3cret\n")
    creds.chmod(0o604)
    (env.config / "hookd" / "team.toml").write_text('servers = ["nats://127.0.0.1:1"]\ncredentials = "nats.token"\n')
    d = DaemonProcess(env).start()
    try:
        with d.client() as c:
            team = c.status().team
        assert "readable by other users" in team.error and team.export is None
    finally:
        d.stop()


def test_token_authentication_against_a_real_server(tmp_path: Path) -> None:
    root = tmp_path / "nats"
    root.mkdir()
    server = NatsServer(root, token="t0ken").start()
    try:
        admin_conf = tmp_path / "admin.toml"
        token = tmp_path / "admin.token"
        token.write_text("t0ken\n")
        token.chmod(0o600)
        admin_conf.write_text(f'servers = ["{server.url}"]\ncredentials = "{token}"\n')
        import asyncio

        from hookd.team import admin

        assert any("created" in line for line in asyncio.run(admin.init(settings.load(str(admin_conf)))))  # type: ignore[arg-type]
        env = make_team_env(tmp_path, "frank", server)
        creds = env.config / "hookd" / "nats.token"
        creds.write_text("t0ken\n")
        creds.chmod(0o600)
        text = (env.config / "hookd" / "team.toml").read_text().replace("[export]", 'credentials = "nats.token"\n[export]')
        (env.config / "hookd" / "team.toml").write_text(text)
        d = DaemonProcess(env).start()
        try:
            with d.client() as c:
                c.emit("custom.team.auth", {})
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with d.client() as c:
                    export = c.status().team.export
                if export.state == "exporting" and export.acked:
                    break
                time.sleep(0.05)
            assert export.state == "exporting" and export.acked, export
        finally:
            d.stop()
    finally:
        server.kill()


def test_tail_team_follows_every_daemon_with_the_local_filters(tmp_path: Path, nats_server: NatsServer) -> None:
    init_team(nats_server, tmp_path)
    envs = [make_team_env(tmp_path, name, nats_server) for name in ("gina", "hal")]
    daemons = [DaemonProcess(e).start() for e in envs]
    try:
        for i, d in enumerate(daemons):
            with d.client() as c:
                c.emit("custom.team.a", {"from": i}, session=f"s{i}")
                c.emit("custom.team.b", {"from": i})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and sum(1 for _, _, b in stream_messages(nats_server) if b["point"].startswith("custom.")) < 4:
            time.sleep(0.05)
        out = envs[0].hookd("tail", "--team", "--no-follow", "--json", "--point", "custom.team.a", "--since", "1h")
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert sorted((r["user"], r["payload"]["from"]) for r in rows) == [("gina", 0), ("hal", 1)]
        assert {r["host"] for r in rows} == {"box.example"} and all(r["daemon"] for r in rows)
        out = envs[1].hookd("tail", "--team", "--no-follow", "--session", "s1", "--color", "never")
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert len(lines) == 1 and lines[0].startswith("box.example/hal ") and "custom.team.a" in lines[0]
    finally:
        for d in daemons:
            d.stop()


def test_tail_team_without_settings_says_where_they_go(tmp_path: Path) -> None:
    env = make_env(tmp_path / "ivy")
    out = env.hookd("tail", "--team", "--no-follow")
    assert out.returncode == 2 and "team.toml" in out.stderr


def _line(seq: int, point: str = "custom.x") -> bytes:
    return json.dumps({"seq": seq, "time": 1.0, "kind": "emit", "point": point}).encode() + b"\n"


def test_outbox_reads_across_rotations_and_waits_for_a_line_being_written(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(_line(1) + _line(2) + _line(3)[:-5])
    box = Outbox(str(path), 0)
    assert [x.seq for x in box.read(10)] == [1, 2]
    with open(path, "ab") as f:
        f.write(_line(3)[-5:] + _line(4))
    # The journal rotates: the current file becomes .1 and a new one starts.
    path.rename(tmp_path / "events.jsonl.1")
    path.write_bytes(_line(5) + _line(6))
    assert [x.seq for x in box.read(3)] == [3, 4, 5]
    assert [x.seq for x in box.read(10)] == [6]
    assert box.read(10) == [] and box.missed == 0
    # Restarted from a seq: the files before it are skipped, the rest read once.
    again = Outbox(str(path), 4)
    assert [x.seq for x in again.read(10)] == [5, 6]


def test_outbox_counts_events_rotated_away_before_they_were_read(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(_line(10) + _line(11))
    box = Outbox(str(path), 3)
    assert [x.seq for x in box.read(10)] == [10, 11]
    assert box.missed == 6 and box.gaps == [(4, 9)]
