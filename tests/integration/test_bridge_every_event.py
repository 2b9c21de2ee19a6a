"""Every event the bridge maps is installed, and a running daemon never rewrites the agent's settings: not at
its start, not when hooks change, not after a restart. An install written by an earlier version (its URLs
name the events installed with it) is still answered and still recognised by uninstall. Real daemon, real
CLI, real settings file."""

from __future__ import annotations

import json
from pathlib import Path

from hookd.agents import settings_file

from ..conftest import Env
from .httphooks import endpoint, status_and_body

POST_GUARD = """
hooks:
  - name: post-check
    point: tool.execute.after
    type: decision
    command: sh
    args: ["-c", "cat >/dev/null"]
    enabled: true
"""
STOP = {
    "session_id": "s-old",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "Stop",
    "stop_hook_active": False,
}


def installed_events(settings: Path) -> set[str]:
    doc = json.loads(settings.read_text())
    return {event for event, groups in doc.get("hooks", {}).items() if any(settings_file.is_ours(g) for g in groups)}


def wait_until_loaded(env: Env, point: str, name: str) -> None:
    """Until the daemon runs ``name`` on ``point`` (its watcher reloaded the file): asked, not slept on."""
    import time

    from hookd_client import Client

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with Client(env.socket) as c:  # in the test's own process: a `hookd explain` per look adds up
            chain = c.explain(point)
        if name in [h.name for h in [*chain.decision_hooks, *chain.observers]]:
            return
        time.sleep(0.05)
    raise AssertionError(f"the daemon never loaded {name!r} on {point}")


def test_every_event_is_installed_and_the_daemon_never_rewrites_the_file(env: Env, daemon_factory, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "x"}\n')
    before = settings.read_bytes()
    r = env.hookd("bridge", "install", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    installed = settings.read_bytes()
    assert installed_events(settings) == set(settings_file.EVENTS)
    assert "?events=" not in settings.read_text()

    daemon = daemon_factory()
    endpoint(daemon)  # it serves its HTTP hooks
    env.write_global_hooks(POST_GUARD)
    wait_until_loaded(env, "tool.execute.after", "post-check")
    env.write_global_hooks(POST_GUARD.replace("tool.execute.after", "chat.message").replace("post-check", "prompt-check"))
    wait_until_loaded(env, "chat.message", "prompt-check")
    daemon.stop()
    daemon_factory()  # a restart: projects not loaded yet have no hooks in the registry
    wait_until_loaded(env, "chat.message", "prompt-check")
    assert settings.read_bytes() == installed  # not one byte rewritten behind the user's back

    assert env.hookd("bridge", "install", "--all-events", "--settings", str(settings)).stdout.startswith("the hookd bridge is already")
    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    assert settings.read_bytes() == before


def test_an_earlier_versions_narrowed_install_is_answered_and_removed(env: Env, daemon_factory, tmp_path: Path) -> None:
    (env.state / "hookd").mkdir(parents=True)
    legacy_record = env.state / "hookd" / "claude-installs.json"
    legacy_record.write_text("{}\n")  # what earlier versions kept for the daemon that rewrote installs
    ep = endpoint(daemon_factory())
    env.write_global_hooks(POST_GUARD)
    wait_until_loaded(env, "tool.execute.after", "post-check")
    events = "UserPromptSubmit,SessionStart,Stop"
    hook = {
        "type": "http",
        "url": f"http://127.0.0.1:{ep.port}/claude-code/Stop?events={events}",
        "headers": {"Authorization": "Bearer $HOOKD_BRIDGE_TOKEN"},
        "allowedEnvVars": ["HOOKD_BRIDGE_TOKEN"],
        "timeout": 600,
    }
    settings = tmp_path / "settings.json"
    user = {"model": "x", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}
    settings.write_text(json.dumps({**user, "hooks": {"Stop": [*user["hooks"]["Stop"], {"hooks": [hook]}]}}, indent=2) + "\n")
    assert installed_events(settings) == {"Stop"}

    # Answered as any Stop, with no word about hooks on events that session does not send.
    status, body = status_and_body(ep.request(json.dumps(STOP).encode(), f"Stop?events={events}"))
    assert (status, body) == (200, b"")

    r = env.hookd("bridge", "uninstall", "--settings", str(settings))
    assert r.returncode == 0 and "removed the hookd bridge" in r.stdout, r.stdout
    assert json.loads(settings.read_text()) == user
    assert not legacy_record.exists()
