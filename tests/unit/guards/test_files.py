"""The files pack: recursive deletes judged by where they land, find -delete, shred, truncation, protected paths."""

from __future__ import annotations

import pytest

from hookd.guards.policy import Policy

from .guard import rule, shell, tool


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -rf /", "files.delete-root-or-home"),
        ("rm -rf ~", "files.delete-root-or-home"),
        ('rm -rf "$HOME"', "files.delete-root-or-home"),
        ("rm -rf ${HOME}/", "files.delete-root-or-home"),
        ("rm -rf .", "files.delete-root-or-home"),
        ("rm -rf *", "files.delete-root-or-home"),
        ("rm -rf ..", "files.delete-root-or-home"),
        ("rm -rf /etc", "files.delete-root-or-home"),
        ("cd ~ && rm -rf *", "files.delete-root-or-home"),
        ("rm -rf build/../../", "files.delete-root-or-home"),
        ("rm -rf src", "files.recursive-delete"),
        ("rm -r -f src", "files.recursive-delete"),
        ("rm -fr src", "files.recursive-delete"),
        ("rm --force --recursive src", "files.recursive-delete"),
        ("rm -R src", "files.recursive-delete"),
        ("rm -rf -- src", "files.recursive-delete"),
        ("rm -rf ~/Documents", "files.recursive-delete"),
        ("rm -rf ../other-project", "files.recursive-delete"),
        ('rm -rf "$X"', "files.recursive-delete"),
        ("rm -rf dist/../src", "files.recursive-delete"),
        ("find . -delete", "files.find-delete"),
        ("find src -name '*.py' -delete", "files.find-delete"),
        ("find . -exec rm -rf {} +", "files.find-delete"),
        ("find ~ -name '*.log' -delete", "files.find-delete"),
        ("ls | xargs rm -rf", "files.find-delete"),
        ("git ls-files | xargs rm -f", "files.find-delete"),
        ("shred -u notes.txt", "files.shred"),
        ("truncate -s 0 src/main.py", "files.truncate"),
        (": > src/app.ts", "files.truncate"),
        ("> src/index.js", "files.truncate"),
        ("cp /dev/null src/config.py", "files.truncate"),
        ("rsync -a --delete empty/ ~/", "files.rsync-delete"),
        ("mv ~ /tmp/old-home", "files.delete-root-or-home"),
    ],
)
def test_dangerous_deletes_fire_their_rule(command: str, expected: str) -> None:
    assert rule(command) == expected


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf node_modules",
        "rm -rf dist build .next target __pycache__ .pytest_cache",
        "rm -rf packages/*/node_modules",
        "rm -rf build/ *.egg-info",
        "rm -rf /tmp/build-output",
        'rm -rf "/tmp/$RUN_ID"',
        'rm -rf "$TMPDIR/scratch"',
        "rm -rf ~/.cache/pip",
        'rm -rf "$(git rev-parse --show-toplevel)/node_modules"',
        "rm -rf node_modules package-lock.json",
        "rm -f src/old.py",
        "rm src/a.py src/b.py",
        'for d in dist build; do rm -rf "$d"; done',
        "X=build; rm -rf $X",
        "find . -name '*.pyc' -delete",
        "find . -name __pycache__ -type d -exec rm -rf {} +",
        "find . -name '*.pyc' | xargs rm -f",
        "find /tmp -name 'pytest-*' -delete",
        "truncate -s 100M disk.img",
        ": > build/output.log",
        "> app.log",
        "echo hello > greeting.txt",
        "rsync -a --delete build/ dist/",
        "rsync -av --delete ./ user@host:/srv/app/",
        "mv dist dist.old",
        "rmdir empty",
    ],
)
def test_build_and_temporary_deletes_pass(command: str) -> None:
    assert shell(command) is None


def test_the_cwd_decides_what_a_relative_delete_hits() -> None:
    assert rule("rm -rf *", cwd="/home/dev/proj/dist") is None
    assert rule("rm -rf *", cwd="/home/dev") == "files.delete-root-or-home"
    assert rule("rm -rf .", cwd="/home/dev/proj/src") == "files.recursive-delete"
    assert rule("rm -rf proj", cwd="/home/dev") == "files.delete-root-or-home"


def test_an_unknown_target_says_so() -> None:
    found = shell('rm -rf "$TARGET"')
    assert found is not None and "unknown" in found.reason


def test_a_reason_names_what_is_lost_and_the_safer_command() -> None:
    found = shell("rm -rf ~")
    assert found is not None
    assert "home directory" in found.reason and "rm -rf ./dist" in found.reason
    assert found.command == "rm -rf ~" and found.pack == "files" and found.decision == "deny"


def test_protected_paths_guard_plain_deletes_and_writes() -> None:
    policy = Policy(protected_paths=("docs", "~/notes"))
    assert rule("rm docs/a.md", policy=policy) == "files.protected-path"
    assert rule("rm -rf ~/notes", policy=policy) == "files.protected-path"
    assert rule("echo x > docs/index.md", policy=policy) == "files.protected-path"
    assert rule("rm docs/a.md") is None
    found = tool("write_file", {"path": "/home/dev/proj/docs/x.md", "content": "x"}, policy=policy)
    assert found is not None and found.rule == "files.protected-path"
    assert tool("write_file", {"path": "/home/dev/proj/src/x.py", "content": "x"}, policy=policy) is None


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"import shutil; shutil.rmtree('src')\"",
        'python -c \'__import__("shutil").rmtree("src")\'',
        "node -e \"require('fs').rmSync('src', {recursive: true, force: true})\"",
        "perl -MFile::Path -e 'rmtree(\"/home/dev/other\")'",
        'ruby -e \'require "fileutils"; FileUtils.rm_rf("src")\'',
        "python3 -c \"import subprocess; subprocess.run(['rm', '-rf', 'src'])\"",
        "python3 - <<'EOF'\nimport shutil\nshutil.rmtree('src')\nEOF",
    ],
)
def test_interpreters_deleting_a_tree_are_read_as_rm(command: str) -> None:
    found = shell(command)
    assert found is not None and found.rule in ("files.recursive-delete", "files.delete-root-or-home")
    assert found.command == command.split("\n")[0] or found.command.startswith(command.split(" ")[0])


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"import shutil; shutil.rmtree('build')\"",
        "node -e \"console.log('fs.rmSync(src, {recursive: true})')\"",
        "python3 -c \"print('rm -rf /')\"",
        "python3 - <<'EOF'\nprint('shutil.rmtree is dangerous')\nEOF",
    ],
)
def test_interpreters_printing_or_deleting_build_dirs_pass(command: str) -> None:
    assert shell(command) is None


def test_package_manager_caches_in_the_home_are_safe_to_delete() -> None:
    assert shell("rm -rf ~/.npm") is None
    assert shell("rm -rf ~/.cargo/registry/cache") is None
    assert rule("rm -rf ~/.cargo") == "files.recursive-delete"
