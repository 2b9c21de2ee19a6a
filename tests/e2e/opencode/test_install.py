"""`hookd bridge install opencode` / `uninstall opencode`: where the plugin goes, and what is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.bridges.opencode import install as plugin
from tests.conftest import Env


def test_user_scope_follows_xdg_config_home_and_uninstall_removes_what_install_created(env: Env) -> None:
    done = env.hookd("bridge", "install", "opencode", "--client", "hookd-client")
    assert done.returncode == 0, done.stderr
    target = env.config / "opencode" / "plugin" / "hookd.js"
    text = target.read_text()
    assert 'from "hookd-client"' in text and '"failClosed": false' in text
    assert env.hookd("bridge", "uninstall", "opencode").returncode == 0
    assert list(env.config.iterdir()) == []  # opencode/ and plugin/ were install's: gone again
    again = env.hookd("bridge", "uninstall", "opencode")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


def test_an_existing_plugin_directory_and_its_other_plugins_are_kept(env: Env) -> None:
    directory = env.config / "opencode" / "plugin"
    directory.mkdir(parents=True)
    (directory / "mine.js").write_text("export const Mine = async () => ({})\n")
    assert env.hookd("bridge", "install", "opencode", "--client", "hookd-client").returncode == 0
    assert env.hookd("bridge", "uninstall", "opencode").returncode == 0
    assert sorted(p.name for p in directory.iterdir()) == ["mine.js"]


def test_a_link_at_the_plugin_name_is_refused(env: Env, tmp_path: Path) -> None:
    directory = env.config / "opencode" / "plugin"
    directory.mkdir(parents=True)
    (tmp_path / "elsewhere.js").write_text("x")
    (directory / "hookd.js").symlink_to(tmp_path / "elsewhere.js")
    done = env.hookd("bridge", "install", "opencode", "--client", "hookd-client")
    assert done.returncode == 1 and "not written by hookd" in done.stderr
    assert (tmp_path / "elsewhere.js").read_text() == "x"


@pytest.mark.parametrize(
    ("args", "problem"),
    [("--timeout nope", "takes seconds"), ("--timeout 0", "over 0"), ("--verbose", "unknown option"), ("--client-side", "unknown")],
)
def test_bad_bridge_args_are_named(args: str, problem: str) -> None:
    with pytest.raises(plugin.InstallError, match=problem):
        plugin.parse_options(args)


def test_local_scope_does_not_exist_for_opencode(env: Env) -> None:
    done = env.hookd("bridge", "install", "opencode", "--local", "--client", "hookd-client")
    assert done.returncode == 1 and "no local settings" in done.stderr


def test_a_missing_client_build_is_named(env: Env, tmp_path: Path) -> None:
    done = env.hookd("bridge", "install", "opencode", "--client", str(tmp_path / "nothing"))
    assert done.returncode == 1 and "does not exist" in done.stderr
    assert not (env.config / "opencode").exists()
