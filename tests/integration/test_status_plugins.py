"""`hookd status` on plugin directories: one line for those that do not exist, saying so; a line of
its own for a directory that exists but holds no plugin. Real daemon, real CLI."""

from __future__ import annotations

from ..conftest import Env


def _plugin_lines(env: Env) -> list[str]:
    r = env.hookd("status")
    assert r.returncode == 0, r.stderr
    return [line for line in r.stdout.splitlines() if line.startswith("plugins:")]


def test_status_says_once_that_no_plugin_directory_exists(env: Env, daemon_factory) -> None:
    daemon_factory()
    base = env.config / "hookd"
    assert not (base / "plugin").exists() and not (base / "plugins").exists()
    assert _plugin_lines(env) == [f"plugins:     no plugin directory (not present: {base / 'plugin'}, {base / 'plugins'})"]


def test_status_tells_an_empty_plugin_directory_from_one_that_does_not_exist(env: Env, daemon_factory) -> None:
    base = env.config / "hookd"
    (base / "plugins").mkdir(parents=True)
    daemon_factory()
    assert _plugin_lines(env) == [
        f"plugins:     {base / 'plugins'}  empty (no plugin in it)",
        f"plugins:     not present: {base / 'plugin'}",
    ]
