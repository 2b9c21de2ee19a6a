"""The installed bridge follows hookd's hooks: a running daemon installs only the events that have hooks
(plus SessionStart, UserPromptSubmit and Stop), adds an event as soon as a hook is added on it, and tells a
session that read the older settings which hooks it cannot run. Real daemon, real CLI, real settings file."""

from __future__ import annotations

import json
import time
from pathlib import Path

from hookd.bridges import settings_file

from ..conftest import Env
from .httphooks import endpoint, status_and_body

STOP = {
    "session_id": "s-sync",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
}
POST_GUARD = """
hooks:
  - name: post-check
    point: tool.execute.after
    type: decision
    command: sh
    args: ["-c", "cat >/dev/null"]
    enabled: true
"""


def installed_events(settings: Path) -> set[str]:
    doc = json.loads(settings.read_text())
    return {event for event, groups in doc.get("hooks", {}).items() if any(settings_file.is_ours(g) for g in groups)}


def wait_for_events(settings: Path, wanted: set[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if installed_events(settings) == wanted:
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    raise AssertionError(f"installed events {sorted(installed_events(settings))}, wanted {sorted(wanted)}")


def test_only_hooked_events_are_installed_and_a_new_hook_is_added_to_them(env: Env, daemon_factory, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "x"}\n')
    before = settings.read_bytes()
    ep = endpoint(daemon_factory())
    r = env.hookd("bridge", "install", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    always = set(settings_file.ALWAYS)
    wait_for_events(settings, always)
    doc = json.loads(settings.read_text())
    url = doc["hooks"]["Stop"][0]["hooks"][0]["url"]
    assert url.endswith("/claude-code/Stop?events=UserPromptSubmit,SessionStart,Stop"), url
    assert "--events UserPromptSubmit,SessionStart,Stop" in doc["hooks"]["SessionStart"][0]["hooks"][0]["command"]

    # A guard added while the daemon runs: its event is installed at once (the watcher reloads the file).
    env.write_global_hooks(POST_GUARD)
    wait_for_events(settings, always | {"PostToolUse"})

    # A session that read the settings before the guard was added is told the guard does not run in it.
    old = "Stop?events=UserPromptSubmit,SessionStart,Stop"
    status, body = status_and_body(ep.request(json.dumps(STOP).encode(), old))
    assert status == 200
    message = json.loads(body)["systemMessage"]
    assert "PostToolUse: 'post-check'" in message and "start a new session" in message
    # One that read the new settings is not.
    new = json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["url"].split("/claude-code/", 1)[1]
    status, body = status_and_body(ep.request(json.dumps(STOP).encode(), new))
    assert status == 200 and body == b""

    # The guard removed: its event goes again.
    env.write_global_hooks("hooks: []\n")
    wait_for_events(settings, always)

    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    assert settings.read_bytes() == before
    assert str(settings) not in json.loads((env.state / "hookd" / "claude-installs.json").read_text())


def test_all_events_stay_when_asked_or_when_an_observer_sees_every_event(env: Env, daemon_factory, tmp_path: Path) -> None:
    every = set(settings_file.EVENTS)
    asked = tmp_path / "asked.json"
    followed = tmp_path / "followed.json"
    env.write_global_hooks(
        """
        hooks:
          - name: audit-all
            point: event
            type: observer
            command: sh
            args: ["-c", "cat >/dev/null"]
            enabled: true
        """
    )
    daemon_factory()
    assert env.hookd("bridge", "install", "--all-events", "--settings", str(asked)).returncode == 0
    assert env.hookd("bridge", "install", "--settings", str(followed)).returncode == 0
    assert installed_events(asked) == every
    # An observer on the catch-all point needs every event; its file gone, only the hooked ones stay.
    wait_for_events(followed, every)
    env.write_global_hooks("hooks: []\n")
    wait_for_events(followed, set(settings_file.ALWAYS))
    assert installed_events(asked) == every
    assert "?events=" not in json.dumps(json.loads(asked.read_text()))


def test_a_file_the_bridge_was_taken_out_of_is_left_alone(env: Env, daemon_factory, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    daemon_factory()
    assert env.hookd("bridge", "install", "--settings", str(settings)).returncode == 0
    wait_for_events(settings, set(settings_file.ALWAYS))
    settings.write_text('{"hooks": {}}\n')  # the user took the bridge out by hand
    env.write_global_hooks(POST_GUARD)
    settings.unlink()
    # A later install is the daemon's cue; until then it writes nothing into that path.
    other = tmp_path / "other.json"
    assert env.hookd("bridge", "install", "--settings", str(other)).returncode == 0
    wait_for_events(other, set(settings_file.ALWAYS) | {"PostToolUse"})
    assert not settings.exists()
