"""For a first-time user, install (then install again with other options) then uninstall leaves the tree as it
was, for every agent and scope: no skeleton settings file, no backup, no directory install created, nothing in
the repository. Meanwhile the bridge's secret is in the one file the agent reads it from, never in a backup or
in a project's committed settings. hookd's own files (the endpoint's secret and port, the compiled shim) are
hookd's, shared by every install, and stay."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import HOOKD, Env

# hookd's own state and data, which outlive any one install.
OWN = ("state/hookd/http.json", "state/hookd/http-token", "home/.local/share/hookd")


def tree(root: Path) -> set[str]:
    out = set()
    for p in root.rglob("*"):
        rel = str(p.relative_to(root))
        if rel.startswith("daemon-") or any(rel == o or rel.startswith(o + "/") or o.startswith(rel + "/") for o in OWN):
            continue
        out.add(rel)
    return out


def holding(root: Path, secret: str) -> set[str]:
    found = set()
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink() and secret.encode() in p.read_bytes():
            found.add(str(p.relative_to(root)))
    return found - {"state/hookd/http-token"}


def hookd(env: Env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*HOOKD, *args], cwd=cwd, env=env.env, capture_output=True, text=True, timeout=60)


CASES = {
    # agent, scope, options of the second install, the files that hold the secret while installed
    "claude-user": ("claude-code", "--user", ("--timeout", "30"), {"home/.claude/settings.json"}),
    "claude-project": ("claude-code", "--project", ("--fail-closed",), {"repo/.claude/settings.local.json"}),
    "claude-local": ("claude-code", "--local", ("--no-shim",), {"repo/.claude/settings.local.json"}),
    "claude-settings": ("claude-code", "--settings=new/dir/settings.json", ("--timeout", "30"), {"repo/new/dir/settings.json"}),
    "claude-command": ("claude-code", "--user", ("--command", "hookd"), set()),
    "qwen-user": ("qwen", "--user", ("--fail-closed",), {"home/.qwen/settings.json"}),
    "qwen-project": ("qwen", "--project", ("--timeout", "30"), {"repo/.qwen/settings.json"}),
    "gemini-user": ("gemini", "--user", ("--fail-closed",), set()),
    "gemini-project": ("gemini", "--project", ("--timeout", "30"), set()),
    "codex-user": ("codex", "--user", ("--fail-closed",), set()),
    "codex-project": ("codex", "--project", ("--timeout", "30"), set()),
    "opencode-user": ("opencode", "--user", ("--bridge-args=--fail-closed",), set()),
    "opencode-project": ("opencode", "--project", ("--bridge-args=--timeout 5",), set()),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_install_twice_then_uninstall_leaves_the_tree_as_it_was(env: Env, case: str) -> None:
    agent, scope, again, secret_files = CASES[case]
    if agent == "opencode" and shutil.which("node") is None:
        pytest.skip("node is not installed: the plugin's load check needs it")
    repo = env.root / "repo"
    repo.mkdir()
    before = tree(env.root)
    extra = ("--no-trust", "--accept-untrusted") if agent == "codex" else ()  # trusting needs Codex: tests/e2e/codex
    first = hookd(env, repo, "bridge", "install", agent, scope, *extra)
    assert first.returncode == 0, first.stderr
    second = hookd(env, repo, "bridge", "install", agent, scope, *extra, *again)
    assert second.returncode == 0, second.stderr
    token_file = env.state / "hookd" / "http-token"  # made by the installs that route through the HTTP endpoint
    if token_file.exists():
        assert holding(env.root, token_file.read_text().strip()) == secret_files
    else:
        assert not secret_files
    gone = hookd(env, repo, "bridge", "uninstall", agent, scope)
    assert gone.returncode == 0, gone.stderr
    assert tree(env.root) == before, gone.stdout


def test_a_file_removed_by_hand_and_installed_again_still_leaves_nothing(env: Env) -> None:
    settings = env.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"model": "x"}\n')
    assert hookd(env, env.root, "bridge", "install").returncode == 0
    settings.unlink()  # the user deleted it; the record of what it was before the first install is still there
    assert hookd(env, env.root, "bridge", "install", "--timeout", "30").returncode == 0
    assert hookd(env, env.root, "bridge", "uninstall").returncode == 0
    assert not settings.exists()  # no skeleton file
    assert not (env.state / "hookd" / "installs").exists()
