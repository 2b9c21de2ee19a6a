"""`hookd check` as a user meets it: paths as ruff names them, --fix, and GitHub Actions annotations."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

from ..conftest import Env

BROKEN = textwrap.dedent(
    """\
    # the guard of this repository; keep this comment
    hooks:
      - name: guard          # the one guard
        point: tool.approval.pre
        type: decison
        command: /bin/true
        timout: 10
        enabled: true
    """
)


def check(env: Env, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*env.command, "check", *args], cwd=cwd, env=env.env, capture_output=True, text=True, timeout=60)


def project(tmp_path: Path, text: str = BROKEN) -> tuple[Path, Path]:
    root = tmp_path / "repo"
    path = root / ".hookd" / "hooks.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return root, path


# --------------------------------------------------------------- paths


def test_a_file_under_the_current_directory_is_named_relative_to_it_as_ruff_does(env: Env, tmp_path: Path) -> None:
    root, path = project(tmp_path)
    elsewhere = tmp_path / "drafts" / "draft.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(BROKEN)
    ok = root / ".hookd" / "hooks.d" / "10-ok.yaml"
    ok.parent.mkdir()
    ok.write_text("hooks:\n  - {name: ok, point: custom.x, type: observer, command: /bin/true, enabled: true}\n")
    for args in ([], [".hookd/hooks.yaml", str(ok)], [str(path), ".hookd/hooks.d/10-ok.yaml"]):
        r = check(env, root, *args)
        assert r.returncode == 1, r.stderr
        lines = r.stdout.splitlines()
        assert lines[0].startswith(".hookd/hooks.yaml:5:11: hook 'guard': field 'type': "), lines
        assert ".hookd/hooks.d/10-ok.yaml: ok, 1 hook (ok)" in lines, lines
        assert str(root) not in r.stdout.replace(f"`hookd trust {root}", ""), r.stdout
    # Outside the current directory: the absolute path, as given.
    r = check(env, root, str(elsewhere))
    assert r.stdout.startswith(f"{elsewhere}:5:11: hook 'guard'"), r.stdout
    # From a subdirectory, the file above it is not under it.
    r = check(env, root / ".hookd" / "hooks.d", str(path))
    assert r.stdout.startswith(f"{path}:5:11:"), r.stdout
    # JSON is for programs: absolute paths, whatever the current directory.
    assert json.loads(check(env, root, "--json").stdout)["problems"][0]["file"] == str(path)


# --------------------------------------------------------------- --fix


def test_fix_rewrites_only_the_misspelt_spots_keeps_comments_and_reports_what_is_left(env: Env, tmp_path: Path) -> None:
    text = BROKEN.replace("    enabled: true\n", "")  # enabled: true or false? that is the author's to say
    root, path = project(tmp_path, text)
    path.chmod(0o640)
    inode = path.stat().st_ino
    untouched = check(env, root)
    assert untouched.returncode == 1 and path.read_text() == text
    assert "3 problems in 1 file, 2 fixable with `hookd check --fix`" in untouched.stdout, untouched.stdout

    r = check(env, root, "--fix")
    assert r.returncode == 1, r.stdout + r.stderr
    assert path.read_text() == text.replace("type: decison", "type: decision").replace("timout:", "timeout:")
    lines = r.stdout.splitlines()
    assert ".hookd/hooks.yaml:5:11: fixed: hook 'guard': field 'type': decison -> decision" in lines
    assert ".hookd/hooks.yaml:7:5: fixed: hook 'guard': field 'timout': timout -> timeout" in lines
    left = [line for line in lines if "required field 'enabled' is missing" in line]
    assert len(left) == 1 and left[0].startswith(".hookd/hooks.yaml:3:5:"), lines
    assert lines[-1] == "2 fixed, 1 problem left in 1 file"
    # Replaced in one rename, with the file's own permissions.
    assert path.stat().st_ino != inode and path.stat().st_mode & 0o777 == 0o640

    with path.open("a") as f:
        f.write("    enabled: true\n")
    r = check(env, root, "--fix")
    assert r.returncode == 0, r.stdout
    assert r.stdout.splitlines()[-1] == "0 fixed, no problem left"


def test_fix_writes_a_symlinked_file_at_its_target_and_says_so_in_json(env: Env, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "hooks.yaml"
    dotfiles.parent.mkdir()
    dotfiles.write_text(BROKEN)
    root, path = project(tmp_path, "")
    path.unlink()
    path.symlink_to(dotfiles)
    r = check(env, root, "--fix", "--json")
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["valid"] and out["problems"] == []
    assert [(p["field"], p["fix"]["replace"], p["fix"]["with"]) for p in out["fixed"]] == [
        ("type", "decison", "decision"),
        ("timout", "timout", "timeout"),
    ]
    assert path.is_symlink() and os.readlink(path) == str(dotfiles)
    assert dotfiles.read_text() == BROKEN.replace("decison", "decision").replace("timout:", "timeout:")


def test_fix_leaves_a_file_with_nothing_to_fix_as_it_was(env: Env, tmp_path: Path) -> None:
    root, path = project(tmp_path, BROKEN.replace("type: decison", "type: maybe").replace("timout", "timeout"))
    before = path.stat()
    r = check(env, root, "--fix")
    assert r.returncode == 1 and "0 fixed, 1 problem left in 1 file" in r.stdout
    assert path.stat().st_ino == before.st_ino and path.stat().st_mtime_ns == before.st_mtime_ns


# --------------------------------------------------------------- GitHub Actions


def test_github_format_prints_one_annotation_per_problem(env: Env, tmp_path: Path) -> None:
    root, path = project(tmp_path)
    odd = root / "a,b:c.yaml"  # the path is a property: its , and : are escaped
    odd.write_text("hooks:\n  - {name: '100% off', point: custom.x, type: observer, command: c, enabled: true, on_error: deny}\n")
    r = check(env, root, "--output-format", "github", ".hookd/hooks.yaml", str(odd))
    assert r.returncode == 1, r.stderr
    assert r.stdout.splitlines() == [
        "::error file=.hookd/hooks.yaml,line=5,col=11::hook 'guard': field 'type': type must be 'observer' or 'decision', "
        "got string 'decison' (did you mean 'decision'?)",
        "::error file=.hookd/hooks.yaml,line=7,col=5::hook 'guard': field 'timout': unknown field 'timout'; known fields are "
        "name, point, type, command, description, args, env, priority, enabled, timeout, on_error, match, cwd, mode, "
        "concurrency, group, combine, format, shadow, builtin, options (did you mean 'timeout'?)",
        "::error file=a%2Cb%3Ac.yaml,line=2,col=84::hook '100%25 off': field 'on_error': on_error applies to decision hooks "
        "only: a failing observer never blocks anything (remove on_error, or make this a decision hook)",
    ]
    # The default format is as it was: problems, their lines, carets.
    default = check(env, root, ".hookd/hooks.yaml")
    assert "   5 |     type: decison\n     |           ^\n" in default.stdout
    assert not any(line.startswith("::") for line in default.stdout.splitlines())
    # Valid files: no annotation, exit 0.
    path.write_text(BROKEN.replace("decison", "decision").replace("timout", "timeout"))
    clean = check(env, root, "--output-format", "github", ".hookd/hooks.yaml")
    assert clean.returncode == 0 and clean.stdout == ""
