"""`hookd bridge install` with HTTP hooks and the shim, on real settings files through the CLI:
what is written for every event, the secret and the file's mode, and an uninstall that undoes it byte for byte."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from hookd.agents import settings_file

from ..conftest import Env

USER = json.dumps(
    {
        "model": "claude-sonnet-4-5",
        "env": {"FOO": "1"},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/.claude/guard.sh"}]}]},
    },
    indent=2,
)


def ours(doc: dict, event: str) -> dict:
    (group,) = [g for g in doc["hooks"].get(event, []) if settings_file.is_ours(g)]
    return group["hooks"][0]


def test_every_event_gets_http_or_the_shim_and_uninstall_restores_the_bytes(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER)
    settings.chmod(0o644)
    before = settings.read_bytes()
    r = env.hookd("bridge", "install", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    doc = json.loads(settings.read_text())
    token = (env.state / "hookd" / "http-token").read_text().strip()
    port = json.loads((env.state / "hookd" / "http.json").read_text())["port"]
    assert doc["env"] == {"FOO": "1", settings_file.TOKEN_ENV: token}
    assert stat.S_IMODE(settings.stat().st_mode) == 0o600  # it holds the secret now
    assert doc["hooks"]["PreToolUse"][0]["matcher"] == "Bash"  # the user's own hook stays first
    for event in settings_file.EVENTS:
        hook = ours(doc, event)
        assert hook["timeout"] == 600
        if event in settings_file.COMMAND_EVENTS:
            assert hook["type"] == "command" and f" {event} {port} " in hook["command"]
        else:
            assert hook["type"] == "http" and hook["url"] == f"http://127.0.0.1:{port}/claude-code/{event}"
            assert hook["headers"]["Authorization"] == f"Bearer ${settings_file.TOKEN_ENV}"
            assert settings_file.TOKEN_ENV in hook["allowedEnvVars"] and "onFailure" not in hook
    assert "WorktreeCreate" not in doc["hooks"] and "WorktreeRemove" not in doc["hooks"]
    assert set(settings_file.EVENTS) | {"WorktreeCreate", "WorktreeRemove"} == set(settings_file.CLAUDE_EVENTS)

    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0 and "as it was before install" in r.stdout, r.stdout
    assert settings.read_bytes() == before
    assert stat.S_IMODE(settings.stat().st_mode) == 0o644


def test_fail_closed_and_a_longer_timeout(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    # The CLI cannot be asked its version: the worst is assumed.
    no_cli = str(tmp_path / "no" / "claude")
    r = env.hookd("bridge", "install", "--settings", str(settings), "--fail-closed", "--timeout", "900", "--agent-cli", no_cli)
    assert r.returncode == 0, r.stderr
    assert "the Claude Code version is unknown" in r.stderr and "with --fail-closed instead" in r.stderr
    doc = json.loads(settings.read_text())
    assert ours(doc, "PreToolUse")["type"] == "command" and ours(doc, "PreToolUse")["command"].endswith("--timeout 882 --fail-closed")
    assert "onFailure" not in ours(doc, "Stop")
    assert ours(doc, "SessionStart")["command"].endswith("--timeout 882 --fail-closed")
    assert {ours(doc, e)["timeout"] for e in settings_file.EVENTS} == {900}
    assert env.hookd("bridge", "uninstall", "--settings", str(settings)).returncode == 0
    assert not settings.exists()


def test_installing_again_after_the_port_moved_replaces_the_hooks(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER)
    before = settings.read_bytes()
    assert env.hookd("bridge", "install", "--settings", str(settings)).returncode == 0
    again = env.hookd("bridge", "install", "--settings", str(settings))
    assert again.returncode == 0 and "already" in again.stdout
    endpoint = env.state / "hookd" / "http.json"
    moved = json.loads(endpoint.read_text())
    moved["port"] = moved["port"] % 60000 + 1024
    endpoint.write_text(json.dumps(moved))
    r = env.hookd("bridge", "install", "--settings", str(settings))
    assert r.returncode == 0 and "installed" in r.stdout, r.stdout
    doc = json.loads(settings.read_text())
    assert ours(doc, "Stop")["url"].startswith(f"http://127.0.0.1:{moved['port']}/")
    assert not Path(str(settings) + settings_file.BACKUP_SUFFIX).exists()  # the record is in hookd's state, not here
    assert env.hookd("bridge", "uninstall", "--settings", str(settings)).returncode == 0
    assert settings.read_bytes() == before


def test_a_symlinked_settings_file_stays_a_link(env: Env, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text(USER)
    before = real.read_bytes()
    link = env.home / ".claude" / "settings.json"
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert env.hookd("bridge", "install").returncode == 0
    assert link.is_symlink() and settings_file.TOKEN_ENV in real.read_text()
    assert env.hookd("bridge", "uninstall").returncode == 0
    assert link.is_symlink() and real.read_bytes() == before


def test_a_settings_env_that_is_not_an_object_is_left_alone(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"env": ["A=1"]}\n')
    r = env.hookd("bridge", "install", "--settings", str(settings))
    assert r.returncode == 1 and "'env' must be an object" in r.stderr
    assert settings.read_text() == '{"env": ["A=1"]}\n'
