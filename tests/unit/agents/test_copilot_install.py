"""`hookd bridge install copilot`'s hook file: written whole, removed exactly, never over a file of the user's;
fail-closed even when the shim itself cannot be run; and what doctor reads of it (trust, disableAllHooks,
an old Copilot CLI)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hookd.agents import agent_version
from hookd.agents.copilot import install, installed


def options(tmp_path: Path, fail_closed: bool = False) -> install.Options:
    return install.Options(str(tmp_path / "no-such-shim"), 8765, str(tmp_path / "token"), 600, fail_closed)


def tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


@pytest.mark.parametrize("existing", ["nothing", "folder", "other-hooks"])
def test_install_then_uninstall_leaves_the_home_byte_for_byte(tmp_path: Path, existing: str) -> None:
    home, state = tmp_path / "home", str(tmp_path / "state")
    hooks = home / ".copilot" / "hooks"
    if existing != "nothing":
        hooks.mkdir(parents=True)
    if existing == "other-hooks":
        (hooks / "mine.json").write_text('{"version": 1, "hooks": {}}\n')
    home.mkdir(exist_ok=True)
    before = tree(home)
    path = str(hooks / "hookd.json")
    assert "installed the hookd bridge for 12 Copilot CLI events" in install.install(path, options(tmp_path), state)
    doc = json.loads(Path(path).read_text())
    assert set(doc["hooks"]) == set(install.INSTALLED_EVENTS) and doc["version"] == 1
    assert install.install(path, options(tmp_path), state) == f"already installed: {path}"
    assert install.ours(path) == 12
    assert install.uninstall(path, state) == f"removed the hookd bridge: {path}"
    assert tree(home) == before


def test_a_hook_file_of_the_user_s_is_never_overwritten_or_removed(tmp_path: Path) -> None:
    path = tmp_path / "hookd.json"
    theirs = '{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./check.sh"}]}}'
    path.write_text(theirs)
    with pytest.raises(install.InstallError, match="not hookd's"):
        install.install(str(path), options(tmp_path), str(tmp_path / "state"))
    with pytest.raises(install.InstallError, match="not hookd's"):
        install.uninstall(str(path), str(tmp_path / "state"))
    assert path.read_text() == theirs


def test_fail_closed_denies_by_itself_when_the_shim_cannot_be_run(tmp_path: Path) -> None:
    command = install.command(options(tmp_path, fail_closed=True), "preToolUse")
    done = subprocess.run(["sh", "-c", command], input=b"{}", capture_output=True, timeout=30, check=False)
    answer = json.loads(done.stdout)
    assert answer["permissionDecision"] == "deny" and "cannot be run" in answer["permissionDecisionReason"]
    assert installed.blocked(answer)
    # Without --fail-closed, and on the other events, the hook is the shim alone.
    assert install.command(options(tmp_path), "preToolUse").startswith("exec ")
    assert install.command(options(tmp_path, fail_closed=True), "sessionStart").startswith("exec ")


def test_doctor_names_an_untrusted_repository_and_hooks_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.delenv("COPILOT_ALLOW_ALL", raising=False)
    monkeypatch.setattr(installed, "_version", lambda: agent_version.Found("/bin/copilot", (1, 0, 102)))
    project = tmp_path / "repo"
    path = install.path_for("project", cwd=str(project))
    install.install(path, options(tmp_path), str(tmp_path / "state"))
    [problem] = installed.inspect(path).problems
    assert f"does not trust {project}" in problem
    (home / ".copilot").mkdir(parents=True)
    (home / ".copilot" / "config.json").write_text("// managed\n" + json.dumps({"trustedFolders": [str(tmp_path)]}))
    assert installed.inspect(path).problems == ()
    doc = json.loads(Path(path).read_text())
    Path(path).write_text(json.dumps({**doc, "disableAllHooks": True}))
    [problem] = installed.inspect(path).problems
    assert "disableAllHooks" in problem
    (home / ".copilot" / "settings.json").write_text('{"disableAllHooks": true}')
    assert "disableAllHooks" in installed.inspect(path).warnings[0]


def test_an_older_copilot_cli_is_named_with_what_will_not_work() -> None:
    old = agent_version.Found("/usr/bin/copilot", (1, 0, 16))
    [line] = installed.version_problems(old, project=False)
    assert "1.0.16" in line and "older than 1.0.24" in line and "modifiedArgs" in line
    assert installed.version_problems(agent_version.Found("/usr/bin/copilot", (1, 0, 40)), project=True)
    assert installed.version_problems(agent_version.Found("/usr/bin/copilot", (1, 0, 102)), project=True) == []
    assert installed.version_problems(agent_version.Found(None, None, "no copilot"), project=False) == []
    assert agent_version.parse("GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.") == (1, 0, 102)
