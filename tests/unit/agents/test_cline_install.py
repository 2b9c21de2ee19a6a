"""`hookd bridge install cline`'s hook files: one executable per event, removed exactly, never over a file of
the user's; fail-closed even when the shim itself cannot be run; the user's own hooks imported and put back."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hookd.agents import agent_version
from hookd.agents.cline import importer, install, installed


def options(tmp_path: Path, fail_closed: bool = False) -> install.Options:
    return install.Options(str(tmp_path / "no-such-shim"), 8765, str(tmp_path / "token"), 120, fail_closed)


def tree(root: Path) -> dict[str, tuple[bytes | None, int]]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None, p.stat().st_mode) for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("existing", ["nothing", "folder", "other-hooks"])
def test_install_then_uninstall_leaves_the_folder_byte_for_byte(tmp_path: Path, existing: str) -> None:
    home, state = tmp_path / "home", str(tmp_path / "state")
    folder = home / ".cline" / "hooks"
    home.mkdir()
    if existing != "nothing":
        folder.mkdir(parents=True)
    if existing == "other-hooks":
        (folder / "TaskStart.py").write_text("print('hi')\n")
    before = tree(home)
    message = install.install(str(folder), options(tmp_path), state)
    assert message.startswith(f"installed the hookd bridge for 10 Cline events in {folder}")
    assert all(os.access(folder / e, os.X_OK) for e in install.INSTALLED_EVENTS)
    assert "--agent cline --timeout 117" in (folder / "PreToolUse").read_text()
    assert install.install(str(folder), options(tmp_path), state).startswith("already installed")
    assert install.uninstall(str(folder), state) == f"removed the hookd bridge: 10 hook files from {folder}"
    assert tree(home) == before


def test_a_hook_file_of_the_user_s_under_hookd_s_name_stops_the_install(tmp_path: Path) -> None:
    folder = tmp_path / "hooks"
    folder.mkdir()
    (folder / "PreToolUse").write_text("#!/bin/sh\necho '{}'\n")
    with pytest.raises(install.InstallError, match="hookd import cline"):
        install.install(str(folder), options(tmp_path), str(tmp_path / "state"))
    assert sorted(os.listdir(folder)) == ["PreToolUse"]


def test_fail_closed_denies_in_cline_s_form_when_the_shim_cannot_be_run(tmp_path: Path) -> None:
    script = tmp_path / "PreToolUse"
    script.write_text(install.script(options(tmp_path, fail_closed=True), "PreToolUse"))
    done = subprocess.run(["sh", str(script)], input=b"{}", capture_output=True, timeout=30, check=False)
    answer = json.loads(done.stdout)
    assert installed.blocked(answer)
    [command] = answer["overrideInput"]["commands"]
    denied = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=30, check=False)
    assert denied.returncode == 1 and "cannot be run; the hookd bridge is installed fail-closed" in denied.stderr


def test_doctor_warns_of_the_user_s_own_pre_tool_use_hooks_beside_hookd_s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLINE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(installed, "_version", lambda: agent_version.Found("/bin/cline", (3, 0, 65)))
    folder = install.folder_for("user")
    install.install(folder, options(tmp_path), str(tmp_path / "state"))
    found = installed.inspect(folder)
    assert (found.hooks, found.problems, found.warnings) == (10, (), ())
    theirs = tmp_path / "home" / "Documents" / "Cline" / "Hooks" / "pretooluse.py"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("print('{}')\n")
    [warning] = installed.inspect(folder).warnings
    assert str(theirs) in warning and "overrideInput" in warning
    old = agent_version.Found("/bin/cline", (2, 4, 0))
    assert "older than 3.0.65" in installed.version_problems(old)[0]


def test_import_runs_each_file_as_cline_would_and_undo_puts_it_back(tmp_path: Path) -> None:
    folder = tmp_path / "hooks"
    folder.mkdir()
    (folder / "PreToolUse.py").write_text("print('{}')\n")
    (folder / "taskstart").write_text("#!/usr/bin/env node\n")
    (folder / "README.md").write_text("not a hook\n")
    result = importer.convert(str(folder), "/bin/hookd", moved=True)
    by_name = {h["name"]: h for h in result.hooks}
    pre = by_name["cline-pre-tool-use-1"]
    assert pre["point"] == "tool.approval.pre" and pre["type"] == "decision" and pre["timeout"] == 120
    assert pre["args"] == ["bridge", "run-hook", "cline", "--event", "PreToolUse", "--", "python3", f"{folder}/PreToolUse.py.hookd-import"]
    start = by_name["cline-task-start-1"]
    assert start["type"] == "observer" and start["args"][-2:] == ["node", f"{folder}/taskstart.hookd-import"]
    before = tree(folder)
    importer.move(result)
    assert sorted(os.listdir(folder)) == ["PreToolUse.py.hookd-import", "README.md", "taskstart.hookd-import"]
    importer.undo(str(folder))
    assert tree(folder) == before
