"""The shipped systemd units, their rendering for this install, and systemd-analyze verify."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hookd_client.paths import default_socket_path

from hookd.cli import manpage
from hookd.edge import units

ROOT = Path(__file__).resolve().parents[3]
needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")


def _parse(text: str) -> configparser.RawConfigParser:
    parser = configparser.RawConfigParser(strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(text)
    return parser


def test_the_package_ships_the_units_of_the_source_tree() -> None:
    for name in units.UNITS:
        assert units.shipped(name) == (ROOT / "systemd" / name).read_text()


def test_the_socket_unit_listens_where_clients_look() -> None:
    sock = _parse(units.shipped("hookd.socket"))["Socket"]
    runtime = "/run/user/1000"
    assert sock["ListenStream"].replace("%t", runtime) == default_socket_path({"XDG_RUNTIME_DIR": runtime})
    assert sock["SocketMode"] == "0600"
    assert sock["DirectoryMode"] == "0700"
    assert sock.get("Accept", "no") == "no"


def test_the_service_unit_is_a_notify_service_with_a_watchdog() -> None:
    service = _parse(units.shipped("hookd.service"))["Service"]
    assert service["Type"] == "notify"
    assert service["Restart"] == "on-failure"
    assert service["WatchdogSec"]
    assert service["ExecStart"].split()[-1] == "serve"
    assert service["KillMode"] == "mixed", "SIGTERM must reach hookd only, so running hooks can finish in the drain"


def test_the_units_document_hookd_not_systemd() -> None:
    """`systemctl status hookd` and `systemctl help hookd` lead to hookd's manual page, which the wheel installs."""
    for text in [units.shipped(name) for name in units.UNITS] + [units.render(name) for name in units.UNITS]:
        documentation = _parse(text)["Unit"]["Documentation"].split()
        assert documentation[0] == "man:hookd(1)", documentation
        assert not any("systemd" in uri for uri in documentation), documentation
    # The page it names is the one generated from the parser: hookd, section 1.
    assert '.TH HOOKD 1 ""' in manpage.render()


def test_render_points_exec_start_at_this_install() -> None:
    service = _parse(units.render("hookd.service"))["Service"]
    argv = service["ExecStart"].split()
    assert os.path.isabs(argv[0]) and os.access(argv[0], os.X_OK)
    assert argv[-1] == "serve"
    assert units.render("hookd.socket") == units.shipped("hookd.socket")


def test_render_escapes_what_systemd_would_expand() -> None:
    text = units.render("hookd.service", ["/opt/my tools/100%/$HOME/bin/python", "-m", "hookd"], ["--socket", "/x/$y"])
    (line,) = [x for x in text.splitlines() if x.startswith("ExecStart=")]
    # systemd expands $VARIABLES in arguments only, not in the executable's path.
    assert line == 'ExecStart="/opt/my tools/100%%/$HOME/bin/python" -m hookd serve --socket /x/$$y'


@needs_analyze
def test_systemd_reads_an_awkward_install_path_back_as_written(tmp_path: Path) -> None:
    bindir = tmp_path / "my tools" / "100%" / "$HOME" / "bin"
    bindir.mkdir(parents=True)
    shutil.copy(shutil.which("true") or "/bin/true", bindir / "hookd")
    target = tmp_path / "units"
    units.install(target, command=[str(bindir / "hookd")])
    result = _verify(target, tmp_path)
    assert result.returncode == 0, result.stderr


def test_hookd_command_runs_this_hookd() -> None:
    argv = units.hookd_command()
    out = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0 and out.stdout.startswith("hookd ")
    assert Path(argv[0]).parent == Path(sys.executable).parent


def test_install_writes_both_units_and_is_idempotent(tmp_path: Path) -> None:
    target = tmp_path / "units"
    first = units.install(target)
    assert [(p.name, what) for p, what in first] == [("hookd.socket", "created"), ("hookd.service", "created")]
    assert [what for __, what in units.install(target)] == ["unchanged", "unchanged"]
    (target / "hookd.service").write_text("[Service]\nExecStart=/old/hookd serve\n")
    assert [what for __, what in units.install(target)] == ["unchanged", "updated"]
    assert sorted(p.name for p in target.iterdir()) == ["hookd.service", "hookd.socket"]


def test_user_unit_dir_respects_xdg_config_home() -> None:
    assert units.user_unit_dir({"XDG_CONFIG_HOME": "/x/cfg", "HOME": "/h"}) == Path("/x/cfg/systemd/user")
    assert units.user_unit_dir({"HOME": "/h"}) == Path("/h/.config/systemd/user")


# ---------------------------------------------------------------- systemd-analyze


def _verify(directory: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # --user needs a runtime directory even without a running user manager (systemd need not be PID 1).
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    # verify runs `man` for each man: page of Documentation=: the page hookd's build installs, generated from
    # this checkout's parser (an editable install has none; tests/e2e checks the one a wheel installs).
    man = tmp_path / "man"
    (man / "man1").mkdir(parents=True, exist_ok=True)
    (man / "man1" / "hookd.1").write_text(manpage.render())
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "SYSTEMD_LOG_LEVEL": "notice", "MANPATH": str(man)}
    return subprocess.run(
        ["systemd-analyze", "verify", "--user", *(str(directory / n) for n in units.UNITS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@needs_analyze
def test_systemd_analyze_verify_passes_on_the_installed_units(tmp_path: Path) -> None:
    target = tmp_path / "units"
    units.install(target)
    result = _verify(target, tmp_path)
    assert result.returncode == 0, result.stderr
    # Unknown keys are only warnings for systemd; any output means something is off.
    assert result.stderr.strip() == "" and result.stdout.strip() == ""


@needs_analyze
def test_systemd_analyze_verify_catches_a_broken_unit(tmp_path: Path) -> None:
    target = tmp_path / "units"
    units.install(target, command=[str(tmp_path / "no-such-hookd")])
    service = target / "hookd.service"
    service.write_text(service.read_text().replace("Type=notify", "Type=notify\nWatchdogSeconds=30"))
    result = _verify(target, tmp_path)
    assert result.returncode != 0
    assert "no-such-hookd" in result.stderr
    assert "WatchdogSeconds" in result.stderr
