"""`hookd bridge install codex` / `uninstall codex` on config.toml: Codex's hook tables appended as one marked
block, the user's bytes never re-serialized, and uninstall giving the file back byte for byte."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.agents.codex import install
from hookd.agents.codex.protocol import INSTALLED_EVENTS

OPTIONS = install.Options("/opt/hookd/bin/hookd")
USER_CONFIG = """\
# my Codex settings
model = "gpt-5.5"

[hooks]

[[hooks.PreToolUse]]
matcher = "^Bash$"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/check.py"
timeout = 30

[projects."/work/app"]
trust_level = "trusted"
"""


def test_install_appends_one_hook_per_event_that_codex_parses(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    said = install.install(str(config), OPTIONS)
    assert said == f"installed the hookd bridge for {len(INSTALLED_EVENTS)} Codex events in {config}"
    assert "/hooks" in install.TRUST_NOTE and "--dangerously-bypass-hook-trust" in install.TRUST_NOTE
    text = config.read_text()
    assert text.startswith(USER_CONFIG)
    doc = tomllib.loads(text)
    # The user's hook is still first; ours follows; other tables are untouched.
    assert doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == "python3 ~/.codex/hooks/check.py"
    assert doc["projects"]["/work/app"]["trust_level"] == "trusted"
    for event in INSTALLED_EVENTS:
        ours = doc["hooks"][event][-1]
        assert "matcher" not in ours
        [hook] = ours["hooks"]
        assert hook["type"] == "command" and hook["command"].startswith("/opt/hookd/bin/hookd bridge codex")
    # Codex clamps SessionEnd and Interrupt hooks to 3 s: the bridge gives up before that.
    assert doc["hooks"]["SessionEnd"][-1]["hooks"][0] == {
        "type": "command",
        "command": "/opt/hookd/bin/hookd bridge codex --event SessionEnd --timeout 2",
        "timeout": 3,
    }
    assert doc["hooks"]["PreToolUse"][-1]["hooks"][0]["timeout"] == 600


def test_install_then_uninstall_is_byte_for_byte(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    for original in (USER_CONFIG, "model = 'x'", "", "\n\n", 'a = 1\r\nb = "two"\r\n'):
        config.write_bytes(original.encode())
        os.chmod(config, 0o600)
        install.install(str(config), OPTIONS)
        assert install.install(str(config), OPTIONS).startswith("already installed")
        install.uninstall(str(config))
        assert config.read_bytes() == original.encode()
        assert config.stat().st_mode & 0o777 == 0o600


def test_changes_made_after_install_are_kept(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    install.install(str(config), OPTIONS)
    config.write_text('approval_policy = "never"\n' + config.read_text() + "\n[tui]\nnotifications = true\n")
    install.uninstall(str(config))
    assert config.read_text() == 'approval_policy = "never"\n' + USER_CONFIG + "\n[tui]\nnotifications = true\n"


def _trust_record(key: str) -> str:
    # As Codex writes it (toml_edit: a blank line, the table, its hash), at the end of the document's tables.
    return f'\n[hooks.state.{json.dumps(key)}]\ntrusted_hash = "sha256:{"0" * 64}"\n'


def test_codex_trust_records_of_our_hooks_go_and_everything_else_codex_added_stays(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    install.install(str(config), OPTIONS)
    text = config.read_text()
    # Our PreToolUse group is the second in its list (the user's comes first): index 1.
    ours = _trust_record(f"{config}:pre_tool_use:1:0") + _trust_record(f"{config}:session_end:0:0")
    theirs = _trust_record(f"{config}:pre_tool_use:0:0") + '\n[projects."/work/other"]\ntrust_level = "trusted"\n'
    # Codex puts new tables before the document's trailing comment: inside our block, before its end marker.
    at = text.index(install.END)
    config.write_text(text[:at] + ours + theirs + text[at:] + _trust_record("/elsewhere/config.toml:stop:0:0"))
    tomllib.loads(config.read_text())
    install.uninstall(str(config))
    assert config.read_text() == USER_CONFIG + theirs + _trust_record("/elsewhere/config.toml:stop:0:0")


def test_reinstalling_keeps_what_codex_added_inside_the_block(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    install.install(str(config), OPTIONS)
    text = config.read_text()
    at = text.index(install.END)
    trusted = _trust_record(f"{config}:pre_tool_use:1:0") + '\n[projects."/work/other"]\ntrust_level = "trusted"\n'
    config.write_text(text[:at] + trusted + text[at:])
    assert install.install(str(config), OPTIONS).startswith("already installed")
    install.install(str(config), OPTIONS._replace(timeout=30))
    assert trusted in config.read_text() and "timeout = 30\n" in config.read_text()
    install.uninstall(str(config))
    assert config.read_text() == USER_CONFIG + '\n[projects."/work/other"]\ntrust_level = "trusted"\n'


def test_reinstall_with_other_options_replaces_the_block_in_place(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    install.install(str(config), OPTIONS)
    said = install.install(str(config), OPTIONS._replace(fail_closed=True))
    assert said.startswith("updated")
    text = config.read_text()
    assert text.count(install.END) == 1 and "--fail-closed" in text
    install.uninstall(str(config))
    assert config.read_text() == USER_CONFIG


def test_a_file_install_created_is_removed_with_its_directories(tmp_path: Path) -> None:
    config = tmp_path / "home" / ".codex" / "config.toml"
    install.install(str(config), OPTIONS)
    assert tomllib.loads(config.read_text())["hooks"]
    install.uninstall(str(config))
    assert not (tmp_path / "home").exists()


def test_a_symlinked_config_is_updated_at_its_target(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "codex.toml"
    target.parent.mkdir()
    target.write_text(USER_CONFIG)
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    install.install(str(link), OPTIONS)
    assert link.is_symlink() and install.END in target.read_text()
    install.uninstall(str(link))
    assert link.is_symlink() and target.read_text() == USER_CONFIG


@pytest.mark.parametrize(
    "bad",
    ["model = \n", "hooks = 3\n", "[hooks]\nPreToolUse = 1\n", "hooks = { PreToolUse = [] }\n"],
)
def test_a_file_codex_could_not_take_our_hooks_in_is_left_alone(tmp_path: Path, bad: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(bad)
    with pytest.raises(install.InstallError, match="nothing was changed"):
        install.install(str(config), OPTIONS)
    assert config.read_text() == bad


def test_uninstall_without_a_block_changes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(USER_CONFIG)
    assert install.uninstall(str(config)).startswith("nothing to remove")
    assert install.uninstall(str(tmp_path / "missing.toml")).startswith("nothing to remove")
    assert config.read_text() == USER_CONFIG


def test_config_path_follows_codex_home(tmp_path: Path) -> None:
    assert install.config_path("user", {"CODEX_HOME": "/c", "HOME": "/h"}) == "/c/config.toml"
    assert install.config_path("user", {"HOME": "/h"}) == "/h/.codex/config.toml"
    assert install.config_path("project", {}, cwd="/p") == "/p/.codex/config.toml"
    with pytest.raises(install.InstallError):
        install.config_path("local", {})


_keys = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
_values = st.one_of(st.integers(-(2**63), 2**63 - 1), st.booleans(), st.text(max_size=20).map(lambda s: s.replace("\\", "")))


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    lines=st.lists(st.tuples(_keys, _values), max_size=6, unique_by=lambda kv: kv[0]),
    newline=st.sampled_from(["\n", "\r\n"]),
    trailing=st.booleans(),
    comment=st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=20),
)
def test_any_valid_file_comes_back_byte_for_byte(tmp_path: Path, lines, newline: str, trailing: bool, comment: str) -> None:
    body = newline.join(f"{k} = {json.dumps(v) if not isinstance(v, bool) else str(v).lower()}" for k, v in lines)
    text = f"# {comment}{newline}{body}" + (newline if trailing else "")
    config = tmp_path / "config.toml"
    config.write_bytes(text.encode())
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    install.install(str(config), OPTIONS)
    tomllib.loads(config.read_text())
    install.uninstall(str(config))
    assert config.read_bytes() == text.encode()
