"""`hookd bridge install opencode` / `uninstall opencode`: where the plugin and its bundled client go, that the
plugin needs no npm package, and what is never touched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from hookd.agents.opencode import install as plugin
from hookd.core import vocabulary
from tests.conftest import Env

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed: install checks the plugin loads under it")


@needs_node
def test_user_scope_follows_xdg_config_home_and_uninstall_removes_what_install_created(env: Env) -> None:
    done = env.hookd("bridge", "install", "opencode")
    assert done.returncode == 0, done.stderr
    directory = env.config / "opencode" / "plugin"
    assert sorted(p.name for p in directory.iterdir()) == ["hookd-client.mjs", "hookd.js"]
    text = (directory / "hookd.js").read_text()
    assert 'from "./hookd-client.mjs"' in text and '"failClosed": false' in text
    assert json.dumps(vocabulary.table(), sort_keys=True) in text  # hookd's tool vocabulary, as the Python side has it
    assert (directory / "hookd-client.mjs").read_bytes() == plugin.BUNDLE.read_bytes()
    assert env.hookd("bridge", "uninstall", "opencode").returncode == 0
    assert list(env.config.iterdir()) == []  # opencode/ and plugin/ were install's: gone again
    again = env.hookd("bridge", "uninstall", "opencode")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


@needs_node
def test_an_existing_plugin_directory_and_its_other_plugins_are_kept(env: Env) -> None:
    directory = env.config / "opencode" / "plugin"
    directory.mkdir(parents=True)
    (directory / "mine.js").write_text("export const Mine = async () => ({})\n")
    assert env.hookd("bridge", "install", "opencode").returncode == 0
    assert env.hookd("bridge", "uninstall", "opencode").returncode == 0
    assert sorted(p.name for p in directory.iterdir()) == ["mine.js"]


@pytest.mark.parametrize("name", ["hookd.js", "hookd-client.mjs"])
def test_a_link_or_a_foreign_file_at_our_names_is_refused(env: Env, tmp_path: Path, name: str) -> None:
    directory = env.config / "opencode" / "plugin"
    directory.mkdir(parents=True)
    (tmp_path / "elsewhere.js").write_text("x")
    (directory / name).symlink_to(tmp_path / "elsewhere.js")
    done = env.hookd("bridge", "install", "opencode")
    assert done.returncode == 1 and "not written by hookd" in done.stderr
    assert (tmp_path / "elsewhere.js").read_text() == "x"
    (directory / name).unlink()
    (directory / name).write_text("// someone else's\n")
    done = env.hookd("bridge", "install", "opencode")
    assert done.returncode == 1 and "not written by hookd" in done.stderr
    assert (directory / name).read_text() == "// someone else's\n"


@pytest.mark.parametrize(
    ("args", "problem"),
    [("--timeout nope", "takes seconds"), ("--timeout 0", "over 0"), ("--verbose", "unknown option"), ("--client-side", "unknown")],
)
def test_bad_bridge_args_are_named(args: str, problem: str) -> None:
    with pytest.raises(plugin.InstallError, match=problem):
        plugin.parse_options(args)


def test_local_scope_does_not_exist_for_opencode(env: Env) -> None:
    done = env.hookd("bridge", "install", "opencode", "--local")
    assert done.returncode == 1 and "no local settings" in done.stderr


def test_a_missing_client_build_is_named(env: Env, tmp_path: Path) -> None:
    done = env.hookd("bridge", "install", "opencode", "--client", str(tmp_path / "nothing"))
    assert done.returncode == 1 and "does not exist" in done.stderr
    assert not (env.config / "opencode").exists()


def test_the_npm_package_name_is_refused_since_no_such_package_exists(env: Env) -> None:
    done = env.hookd("bridge", "install", "opencode", "--client", "hookd-client")
    assert done.returncode == 1 and "no longer imports an npm package" in done.stderr
    assert not (env.config / "opencode").exists()


def test_a_hookd_without_its_bundled_client_fails_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installation that lost the bundle (a broken package) must not write a plugin that cannot load."""
    monkeypatch.setattr(plugin, "BUNDLE", tmp_path / "hookd-client.mjs")
    with pytest.raises(plugin.InstallError, match=r"the bundled hookd-client \(.*hookd-client.mjs\) is missing"):
        plugin.client_specifier(None)


@needs_node
def test_a_plugin_that_cannot_load_is_not_installed(env: Env, tmp_path: Path) -> None:
    broken = tmp_path / "client.mjs"
    broken.write_text("export const Client = ;\n")
    done = env.hookd("bridge", "install", "opencode", "--client", str(broken))
    assert done.returncode == 1 and "would not load in opencode" in done.stderr and "SyntaxError" in done.stderr, done.stderr
    assert not (env.config / "opencode").exists()
