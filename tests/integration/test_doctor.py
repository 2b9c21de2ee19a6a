"""`hookd doctor` against a real daemon, each check shown failing by a real misconfiguration."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from hookd_client import Client

from ..conftest import Env, write_script


def doctor(env: Env, *args: str, environ: dict[str, str] | None = None, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    import subprocess

    from ..conftest import HOOKD

    r = subprocess.run(
        [*HOOKD, "doctor", "--json", *args],
        env=environ or env.env,
        cwd=cwd or env.root,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.stdout.strip(), r.stderr
    return r.returncode, json.loads(r.stdout)


def named(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [c for c in report["checks"] if c["name"] == name]


def failing(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in report["checks"] if c["status"] == "fail"]


def test_a_healthy_setup_passes_and_names_the_daemon(env: Env, daemon) -> None:
    code, report = doctor(env)
    assert code == 0 and report["ok"], report
    (d,) = named(report, "daemon")
    assert d["status"] == "ok" and f"pid {daemon.proc.pid}" in d["message"]
    r = env.hookd("doctor")  # the human format: one line per check, a summary
    assert r.returncode == 0 and "0 failed" in r.stdout, r.stdout


def test_no_daemon_fails_with_how_to_start_it(env: Env) -> None:
    code, report = doctor(env)
    assert code == 1
    (d,) = named(report, "daemon")
    assert d["status"] == "fail" and "hookd serve" in d["fix"]


def test_a_socket_path_too_long_for_a_unix_socket(env: Env, tmp_path: Path) -> None:
    long_dir = tmp_path / ("d" * 60) / ("e" * 60)
    environ = {**env.env, "HOOKD_SOCKET": str(long_dir / "hookd.sock")}
    code, report = doctor(env, environ=environ)
    (s,) = named(report, "socket path")
    assert code == 1 and s["status"] == "fail" and "107" in s["message"], s


def test_a_second_daemon_on_the_same_state_directory(env: Env, daemon_factory, tmp_path: Path) -> None:
    import subprocess

    from ..conftest import HOOKD

    first = daemon_factory()
    second_env = {**env.env, "HOOKD_SOCKET": str(env.root / "run" / "second.sock")}
    # The second daemon refuses the state directory the first one holds, naming its pid.
    second = subprocess.run([*HOOKD, "serve"], env=second_env, capture_output=True, text=True, timeout=60)
    assert second.returncode == 3, second.stderr
    assert str(first.proc.pid) in second.stderr
    _, report = doctor(env)
    (s,) = named(report, "state directory")
    assert s["status"] == "ok", s


def test_a_rejected_hook_file(env: Env, daemon_factory) -> None:
    hooks = env.write_global_hooks("hooks: []\n")
    daemon = daemon_factory()
    hooks.write_text("hooks:\n  - name: g\n    point: tool.approval.pre\n    type: decision\n    command: true\n")  # no `enabled`
    with Client(daemon.socket) as c:
        try:
            c.reload_user_hooks()
        except Exception as exc:
            assert "rejected" in str(exc)
    code, report = doctor(env)
    (h,) = named(report, "hook file")
    assert code == 1 and h["status"] == "fail" and str(hooks) in h["message"] and "hookd check" in h["fix"]


def test_an_untrusted_project_hook_file_in_the_current_directory(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.env.pop("HOOKD_TRUST_ALL")
    project = tmp_path / "repo"
    (project / ".hookd").mkdir(parents=True)
    (project / ".hookd" / "hooks.yaml").write_text(
        "hooks:\n  - name: g\n    point: tool.approval.pre\n    type: decision\n    command: /bin/true\n    enabled: true\n"
    )
    daemon_factory()
    code, report = doctor(env, cwd=project)
    (t,) = named(report, "trust")
    assert t["status"] == "warn" and ".hookd/hooks.yaml" in t["message"] and f"hookd trust {project}" in t["fix"], t
    assert code == 0  # a warning: the user may mean not to trust it
    assert env.hookd("trust", str(project)).returncode == 0
    code, report = doctor(env, cwd=project)
    assert named(report, "trust")[0]["status"] == "ok", report


def test_hook_commands_are_looked_up_on_the_daemons_path(env: Env, daemon_factory, tmp_path: Path) -> None:
    daemon_bin = tmp_path / "daemon-bin"
    shell_bin = tmp_path / "shell-bin"
    write_script(daemon_bin / "only-for-daemon", "pass\n")
    write_script(shell_bin / "only-in-shell", "pass\n")
    not_exec = tmp_path / "not-exec.py"
    not_exec.write_text("pass\n")
    hooks = [("a", "only-for-daemon"), ("b", "only-in-shell"), ("c", str(not_exec)), ("d", "./missing.sh"), ("e", "sh")]
    env.write_global_hooks(
        "hooks:\n"
        + "".join(
            f"  - name: {n}\n    point: tool.approval.pre\n    type: decision\n    command: {c}\n    enabled: true\n" for n, c in hooks
        )
    )
    env.env["PATH"] = f"{daemon_bin}:/usr/bin:/bin"
    daemon_factory()
    shell = {**env.env, "PATH": f"{shell_bin}:/usr/bin:/bin"}
    code, report = doctor(env, environ=shell)
    problems = {c["message"].split("'")[1]: c for c in named(report, "command")}
    assert code == 1
    assert set(problems) == {"b", "c", "d"}, problems  # a is on the daemon's PATH, though not on the shell's
    assert "not on the daemon's PATH" in problems["b"]["message"] and str(daemon_bin) in problems["b"]["message"]
    assert "not executable" in problems["c"]["message"] and "chmod +x" in problems["c"]["fix"]
    assert "does not exist" in problems["d"]["message"] and os.path.join(str(env.home), "missing.sh") in problems["d"]["message"]
    (summary,) = named(report, "commands")
    assert summary["status"] == "ok" and "5 command hooks" in summary["message"]


def test_a_plugin_whose_requirements_fail_to_install(env: Env, daemon_factory) -> None:
    plugins = env.config / "hookd" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "guard.py").write_text("def Guard(ctx):\n    return {}\n")
    # --no-index: pip fails at once, without looking anywhere for the package.
    (plugins / "requirements.txt").write_text("--no-index\nhookd-doctor-no-such-package\n")
    daemon_factory()
    deadline = time.monotonic() + 120  # creating the virtualenv takes a few seconds
    while True:
        code, report = doctor(env)
        (p,) = named(report, "plugins")
        if p["status"] == "fail" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert code == 1 and p["status"] == "fail", p
    assert str(plugins) in p["message"] and "requirements.txt" in p["message"]


def test_the_installed_units_execstart_must_exist(env: Env) -> None:
    assert env.hookd("install-systemd").returncode == 0
    code, report = doctor(env)
    (u,) = named(report, "systemd unit")
    assert u["status"] == "ok", u
    unit = env.config / "systemd" / "user" / "hookd.service"
    text = unit.read_text()
    lines = [ln if not ln.startswith("ExecStart=") else 'ExecStart="/opt/old venv/bin/hookd" serve' for ln in text.splitlines()]
    unit.write_text("\n".join(lines) + "\n")
    code, report = doctor(env)
    (u,) = named(report, "systemd unit")
    assert code == 1 and u["status"] == "fail" and "/opt/old venv/bin/hookd" in u["message"] and "install-systemd" in u["fix"], u


def test_the_state_directory_lock_held_by_another_process(env: Env) -> None:
    import subprocess
    import sys

    lock = env.state / "hookd" / "daemon.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder_code = (
        "import fcntl, os, sys\n"
        f"f = open({str(lock)!r}, 'w')\n"
        "fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "f.write(f'{os.getpid()}\\n'); f.flush()\n"
        "print('held', flush=True)\n"
        "sys.stdin.read()\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", holder_code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        _, report = doctor(env)
        (s,) = named(report, "state directory")
        assert s["status"] == "warn" and f"pid {holder.pid}" in s["message"], s
    finally:
        holder.kill()
        holder.wait()
    _, report = doctor(env)
    (s,) = named(report, "state directory")
    assert s["status"] == "ok" and "not held" in s["message"], s
