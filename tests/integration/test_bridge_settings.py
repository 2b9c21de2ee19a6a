"""`hookd bridge install/uninstall` and `hookd import claude-code` on real settings files, through the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hookd.agents.settings_file import EVENTS

from ..conftest import Env, write_script

# A settings file as a user has it: other settings, other hooks, two-space JSON as Claude Code writes it.
USER_SETTINGS = (
    json.dumps(
        {
            "model": "claude-sonnet-4-6",
            "permissions": {"allow": ["Bash(npm run lint)"], "deny": ["Read(./.env)"]},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 .claude/hooks/check.py", "timeout": 30}]},
                    {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "jq . >/dev/null"}]},
                ],
                "PostToolUse": [{"matcher": "mcp__memory__.*", "hooks": [{"type": "command", "command": "echo done", "timeout": 5}]}],
                "Stop": [{"hooks": [{"type": "prompt", "prompt": "Check if all tasks are complete: $ARGUMENTS"}]}],
                "Notification": [],
            },
            "statusLine": {"type": "command", "command": "echo ✓"},
        },
        indent=2,
        ensure_ascii=False,
    )
    + "\n"
)
BRIDGE = "/opt/hookd/bin/hookd bridge claude-code --timeout 588"


def test_install_then_uninstall_leaves_the_file_byte_identical(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS)
    before = settings.read_bytes()

    r = env.hookd("bridge", "install", "claude-code", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd")
    assert r.returncode == 0, r.stderr
    assert not Path(str(settings) + ".hookd-backup").exists()  # what the file was is kept in hookd's state
    doc = json.loads(settings.read_text())
    original = json.loads(USER_SETTINGS)
    assert doc["model"] == original["model"] and doc["permissions"] == original["permissions"]
    assert doc["statusLine"] == original["statusLine"]
    for event in EVENTS:
        # Each names its event: an input it cannot read is still denied where the event decides.
        expected = {"type": "command", "command": f"{BRIDGE} --event {event}", "timeout": 600}
        assert doc["hooks"][event][-1] == {"hooks": [expected]}, event
    assert "WorktreeCreate" not in doc["hooks"]  # a hook there would replace Claude Code's own worktrees
    # The user's own hooks are untouched and still run first in their lists.
    assert doc["hooks"]["PreToolUse"][:2] == original["hooks"]["PreToolUse"]
    assert doc["hooks"]["Stop"][0] == original["hooks"]["Stop"][0]
    assert settings.read_text().startswith('{\n  "model"')

    again = env.hookd("bridge", "install", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd")
    assert again.returncode == 0 and "already" in again.stdout
    assert json.loads(settings.read_text()) == doc

    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    assert settings.read_bytes() == before
    assert list(tmp_path.glob("*settings.json*")) == [settings]
    assert not (env.state / "hookd" / "installs").exists()
    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0 and "not in" in r.stdout
    assert settings.read_bytes() == before


def test_round_trip_keeps_an_unusual_style(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{\n    "hooks": {\n        "Stop": []\n    },\n    "env": {"A": "1"}}')
    before = settings.read_bytes()
    assert env.hookd("bridge", "install", "--settings", str(settings), "--command", "hookd").returncode == 0
    assert settings.read_text().startswith('{\n    "hooks": {\n        "Stop": [')
    assert env.hookd("bridge", "uninstall", "--settings", str(settings)).returncode == 0
    assert settings.read_bytes() == before


def test_uninstall_keeps_changes_made_after_install(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS)
    env.hookd("bridge", "install", "--settings", str(settings), "--command", "hookd")
    doc = json.loads(settings.read_text())
    doc["model"] = "claude-opus-4-6"
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0 and "kept" in r.stdout
    expected = json.loads(USER_SETTINGS)
    expected["model"] = "claude-opus-4-6"
    assert json.loads(settings.read_text()) == expected
    assert list(tmp_path.glob("*settings.json*")) == [settings]  # nothing of hookd's is left
    assert not (env.state / "hookd" / "installs").exists()


def test_install_in_the_user_scope_creates_the_file_and_uninstall_removes_it(env: Env) -> None:
    settings = env.home / ".claude" / "settings.json"
    r = env.hookd("bridge", "install", "claude-code", "--user", "--command", "hookd")
    assert r.returncode == 0, r.stderr
    assert set(json.loads(settings.read_text())["hooks"]) == set(EVENTS)
    assert env.hookd("bridge", "uninstall", "--user").returncode == 0
    assert not settings.exists()


def test_invalid_settings_are_left_alone(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"hooks": {"Stop": [}\n')
    r = env.hookd("bridge", "install", "--settings", str(settings), "--command", "hookd")
    assert r.returncode == 1
    assert "not valid JSON" in r.stderr and f"{settings}:1:" in r.stderr
    assert settings.read_text() == '{"hooks": {"Stop": [}\n'
    assert not Path(str(settings) + ".hookd-backup").exists()


# `hookd import claude-code` is tested in test_claude_import.py.


def test_run_hook_abstains_when_the_matcher_does_not_match(env: Env, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hook = write_script(
        tmp_path / "hook.py", f'import pathlib; pathlib.Path({str(marker)!r}).touch()\nprint(\'{{"decision": "block"}}\')\n'
    )
    payload = {"toolName": "Read", "args": {"file_path": "/x"}}
    run_env = {**env.env, "HOOKD_POINT": "tool.approval.pre"}

    def run(matcher: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "hookd", "bridge", "run-hook", "claude-code", "--matcher", matcher, "--", str(hook)]
        return subprocess.run(argv, input=json.dumps(payload), env=run_env, capture_output=True, text=True, timeout=30)

    r = run("Bash")
    assert (r.returncode, r.stdout, marker.exists()) == (0, "", False)
    r = run("Read|Grep")
    assert r.returncode == 0 and marker.exists()
    assert json.loads(r.stdout) == {"decision": "deny"}


def test_the_record_of_the_file_before_install_is_private_and_holds_no_secret(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS)
    settings.chmod(0o640)
    assert env.hookd("bridge", "install", "--settings", str(settings)).returncode == 0
    assert env.hookd("bridge", "install", "--settings", str(settings), "--timeout", "30").returncode == 0  # again, other options
    token = (env.state / "hookd" / "http-token").read_text().strip()
    assert token in settings.read_text() and settings.stat().st_mode & 0o777 == 0o600  # it holds the secret now
    [record] = (env.state / "hookd" / "installs").iterdir()
    assert record.stat().st_mode & 0o777 == 0o600 and (record.parent.stat().st_mode & 0o777) == 0o700
    assert token not in record.read_text() and json.loads(record.read_text())["original"] == USER_SETTINGS
    assert env.hookd("bridge", "uninstall", "--settings", str(settings)).returncode == 0
    assert settings.read_text() == USER_SETTINGS and settings.stat().st_mode & 0o777 == 0o640
    assert not record.exists()


def test_a_symlinked_settings_file_is_updated_at_its_target_and_stays_a_link(env: Env, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    real = dotfiles / "settings.json"
    real.write_text(USER_SETTINGS)
    real.chmod(0o600)
    before = real.read_bytes()
    link = env.home / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)

    r = env.hookd("bridge", "install", "--command", "/opt/hookd/bin/hookd")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert BRIDGE in real.read_text()
    assert real.stat().st_mode & 0o777 == 0o600
    assert not list(dotfiles.glob(".settings.json.*"))  # no temporary file left behind

    r = env.hookd("bridge", "uninstall")
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert real.read_bytes() == before
    assert real.stat().st_mode & 0o777 == 0o600
