"""`hookd init --json`: JSON, whether the file is written or printed (--stdout), holding what init
writes. Real CLI, in a temporary project directory."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import yaml

from ..conftest import HOOKD, Env


def _init(env: Env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOKD, "init", *args], env=env.env, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_init_stdout_json_prints_json_with_the_file_init_writes(env: Env, tmp_path: Path) -> None:
    r = _init(env, tmp_path, "--stdout", "--json")
    assert r.returncode == 0, r.stderr
    printed = json.loads(r.stdout)
    assert printed["file"] is None and not (tmp_path / ".hookd").exists()  # printed, not written
    assert printed["hooks"] == ["guards", "no-rm-root", "log-tools"]
    assert [h["name"] for h in yaml.safe_load(printed["content"])["hooks"]] == printed["hooks"]
    assert printed["content"] == _init(env, tmp_path, "--stdout").stdout  # the same text as the plain --stdout

    r = _init(env, tmp_path, "--json")
    assert r.returncode == 0, r.stderr
    written = json.loads(r.stdout)
    path = tmp_path / ".hookd" / "hooks.yaml"
    assert written == {"file": str(path), "hooks": printed["hooks"], "content": path.read_text()}
    assert written["content"] == printed["content"]
    check = subprocess.run([*HOOKD, "check", str(path)], env=env.env, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout


def test_init_shadow_json_writes_the_guards_in_shadow_mode(env: Env, tmp_path: Path) -> None:
    r = _init(env, tmp_path, "--shadow", "--json")
    assert r.returncode == 0, r.stderr
    written = json.loads(r.stdout)
    assert written["hooks"] == ["guards", "no-rm-root", "log-tools"]
    [guards] = [h for h in yaml.safe_load(written["content"])["hooks"] if h["name"] == "guards"]
    assert guards == {
        "name": "guards",
        "point": "tool.approval.pre",
        "builtin": "default",
        "shadow": True,
        "on_error": "deny",
        "enabled": True,
    }
    check = subprocess.run([*HOOKD, "check", written["file"]], env=env.env, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout
    plain = yaml.safe_load(_init(env, tmp_path, "--stdout").stdout)["hooks"][0]
    assert "shadow" not in plain and plain["builtin"] == "default"
