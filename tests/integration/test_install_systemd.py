"""`hookd install-systemd` as a user runs it, and the installed units run hookd as systemd would."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess

import pytest
from hookd_client import Client

from ..conftest import Env
from .test_systemd import wait_for_activator


def _section(path: str, name: str) -> configparser.SectionProxy:
    parser = configparser.RawConfigParser(strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(path)
    return parser[name]


def test_install_systemd_writes_the_units_under_xdg_config_home(env: Env) -> None:
    r = env.hookd("install-systemd")
    assert r.returncode == 0, r.stderr
    unit_dir = env.config / "systemd" / "user"
    assert sorted(p.name for p in unit_dir.iterdir()) == ["hookd.service", "hookd.socket"]
    assert "systemctl --user enable --now hookd.socket" in r.stdout
    assert "journalctl --user -u hookd" in r.stdout
    assert f"created: {unit_dir / 'hookd.service'}" in r.stdout
    again = env.hookd("install-systemd")
    assert f"unchanged: {unit_dir / 'hookd.service'}" in again.stdout


def test_install_systemd_print_writes_nothing(env: Env) -> None:
    r = env.hookd("install-systemd", "--print")
    assert r.returncode == 0, r.stderr
    assert "ListenStream=%t/hookd/hookd.sock" in r.stdout and "Type=notify" in r.stdout
    assert not (env.config / "systemd").exists()


def test_install_systemd_reports_an_unwritable_directory(env: Env) -> None:
    blocker = env.root / "file"
    blocker.write_text("not a directory")
    r = env.hookd("install-systemd", "--unit-dir", str(blocker / "units"))
    assert r.returncode == 1
    assert r.stderr.startswith("hookd: cannot write the units into")


@pytest.mark.skipif(shutil.which("systemd-socket-activate") is None, reason="systemd-socket-activate is not installed")
def test_the_installed_units_serve_the_clients_default_path(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    assert env.hookd("install-systemd").returncode == 0
    unit_dir = env.config / "systemd" / "user"
    runtime = env.env["XDG_RUNTIME_DIR"]
    listen = _section(str(unit_dir / "hookd.socket"), "Socket")["ListenStream"].replace("%t", runtime)
    exec_start = shlex.split(_section(str(unit_dir / "hookd.service"), "Service")["ExecStart"])
    os.makedirs(os.path.dirname(listen), mode=0o700, exist_ok=True)
    client_env = {k: v for k, v in env.env.items() if k != "HOOKD_SOCKET"}
    log_path = env.root / "activate.log"
    with open(log_path, "wb") as log:
        argv = ["systemd-socket-activate", "-l", listen, *exec_start, "--no-user-hooks"]
        proc = subprocess.Popen(argv, env=client_env, stdout=log, stderr=log)
    try:
        wait_for_activator(log_path, listen)
        # What an agent does with no configuration: the default path under $XDG_RUNTIME_DIR.
        monkeypatch.delenv("HOOKD_SOCKET", raising=False)
        monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
        with Client(timeout=30) as c:
            assert c.status().pid == proc.pid
            assert c.status().socket == listen
    finally:
        proc.terminate()
        assert proc.wait(15) == 0
