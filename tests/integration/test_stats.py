"""Stats through a real daemon: `hookd stats` shows them as text and JSON, says so when the daemon runs with
--no-stats, and a client reads them on its own connection. What is counted, and the hooks' results on
each decide's event: tests/daemon/test_stats.py."""

from __future__ import annotations

import json
from pathlib import Path

from hookd_client import Client

from ..conftest import Env
from ..stats_hooks import bash as _bash
from ..stats_hooks import hooks_yaml

HANG_GUARD = 120


def _setup(env: Env, tmp_path: Path) -> None:
    env.write_global_hooks(hooks_yaml(tmp_path))


def test_hookd_stats_prints_and_prints_json(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with daemon.client() as c:
        c.decide("tool.approval.pre", _bash("rm a"), session="s1")
    text = env.hookd("stats")
    assert text.returncode == 0, text.stderr
    assert "guard  [decision, global]  tool.approval.pre" in text.stdout
    assert "1 call  1 deny" in text.stdout and "skipped: decided 1" in text.stdout
    out = env.hookd("stats", "--json", "--window", "60")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["window"] == 60 and {h["hook"]["name"] for h in data["hooks"]} == {"guard", "broken"}


def test_hookd_stats_says_when_stats_are_off(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon_factory("--no-stats")
    assert "stats are off" in env.hookd("stats").stdout


def test_a_client_can_read_stats_on_its_own_connection(env: Env, daemon_factory, tmp_path: Path) -> None:
    _setup(env, tmp_path)
    daemon = daemon_factory()
    with Client(daemon.socket) as c:
        assert c.stats(window=1).window == 1
