"""What a wheel install (`pip install .` into a fresh virtualenv, as pipx does) brings besides the code:
the pages `hookd help` shows, the manual page, and units that name it.

None of it may come from the checkout: the commands run from a directory outside it, with the
venv's own Python, and where the pages are read from is asked of the installed package.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT

PAGES = sorted((ROOT / "docs").glob("*.md"))


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MANPATH", "COLUMNS")}
    return subprocess.run(argv, cwd=cwd, env={**base, **env}, capture_output=True, text=True, timeout=120)


def test_an_installed_hookd_shows_every_page_without_a_source_tree(installed_hookd: Path, tmp_path: Path) -> None:
    venv = installed_hookd.parent.parent
    where = run([str(venv / "bin" / "python"), "-c", "from hookd.cli.helptopics import docs_dir; print(docs_dir())"], tmp_path)
    docs = Path(where.stdout.strip())
    assert docs.is_relative_to(venv) and docs.name == "docs", where.stdout + where.stderr
    listed = json.loads(run([str(installed_hookd), "help", "--json"], tmp_path).stdout)["documents"]
    assert set(listed) == {p.stem for p in PAGES} | {"readme"}
    for page in PAGES:
        r = run([str(installed_hookd), "help", page.stem], tmp_path)
        assert r.returncode == 0 and r.stdout.endswith(page.read_text().rstrip() + "\n"), (page.stem, r.stderr)
    assert run([str(installed_hookd), "help", "readme"], tmp_path).stdout == (ROOT / "README.md").read_text().rstrip() + "\n"
    epilog = " ".join(run([str(installed_hookd), "--help"], tmp_path).stdout.split())
    assert "source tree" not in epilog and "`hookd help` lists the topics" in epilog


def roff(name: str) -> str:
    """A command or option name as a manual page writes it: each hyphen the minus sign."""
    return name.replace("-", "\\-")


def _parser_outline(venv: Path, cwd: Path) -> dict[str, list[str]]:
    """Every command path of the installed parser ("bridge install") -> its option strings."""
    code = """
import argparse, json
from hookd.cli import build_parser
out = {}
def walk(parser, path):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                walk(sub, [*path, name])
        elif path and action.help != argparse.SUPPRESS:  # hidden from --help, hidden from the page
            out.setdefault(" ".join(path), []).extend(action.option_strings)
walk(build_parser(), [])
print(json.dumps(out))
"""
    r = run([str(venv / "bin" / "python"), "-c", code], cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_wheel_installs_the_manual_page_generated_from_its_own_parser(installed_hookd: Path, tmp_path: Path) -> None:
    venv = installed_hookd.parent.parent
    page = venv / "share" / "man" / "man1" / "hookd.1"
    assert page.is_file(), sorted(str(p.relative_to(venv)) for p in venv.rglob("*.1"))
    text = page.read_text()
    # Generated, not written by hand: it is what the installed parser renders now.
    assert text == run([str(venv / "bin" / "python"), "-m", "hookd.cli.manpage"], tmp_path).stdout
    assert text.startswith('.\\" Generated from the parser') and '.TH HOOKD 1 ""' in text
    outline = _parser_outline(venv, tmp_path)
    assert {"check", "bridge", "bridge install", "help", "completion"} <= set(outline)
    for command, options in outline.items():
        assert '.SS "' + roff(command) + '"' in text, command
        for option in options:
            assert "\\fB" + roff(option) + "\\fR" in text, (command, option)
    for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "COMMANDS", "FILES", "EXIT STATUS", "SEE ALSO"):
        assert f"\n.SH {heading}\n" in text, heading
    # Read by the tools that read manual pages, with their warnings on.
    if shutil.which("man"):
        shown = run(["man", "--warnings", "--no-hyphenation", "-l", str(page)], tmp_path, MANWIDTH="200", PAGER="cat")
        assert shown.returncode == 0 and shown.stderr == "", shown.stderr
        plain = " ".join(re.sub(".\x08", "", shown.stdout).split())  # bold and underline are overstrikes: the letters only
        assert "hookd bridge install" in plain and "--fail-closed" in plain and "--output-format" in plain
        # Found by name, through PATH, as `man hookd` and `systemctl help hookd` look for it.
        found = run(["man", "-w", "hookd"], tmp_path, PATH=f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin")
        assert found.stdout.strip() == str(page), found.stdout + found.stderr
    elif shutil.which("groff"):
        shown = run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)], tmp_path)
        assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    elif shutil.which("mandoc"):
        shown = run(["mandoc", "-Tlint", "-Wwarning", str(page)], tmp_path)
        assert shown.returncode == 0, shown.stdout + shown.stderr
    else:
        pytest.skip("neither man, groff nor mandoc is installed: the page was checked for its structure only")


def test_the_installed_units_name_the_manual_page_the_wheel_installed(installed_hookd: Path, tmp_path: Path) -> None:
    venv = installed_hookd.parent.parent
    units = json.loads(run([str(installed_hookd), "install-systemd", "--print", "--json"], tmp_path).stdout)["units"]
    for name, text in units.items():
        documentation = [line for line in text.splitlines() if line.startswith("Documentation=")]
        assert documentation == ["Documentation=man:hookd(1)"], (name, documentation)
    if shutil.which("systemd-analyze") is None or shutil.which("man") is None:
        pytest.skip("systemd-analyze or man is not installed: the units were read, not verified")
    target = tmp_path / "units"
    r = run([str(installed_hookd), "install-systemd", "--unit-dir", str(target)], tmp_path)
    assert r.returncode == 0, r.stderr
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    # verify runs `man hookd(1)` for Documentation=: found beside the install's bin/, as for its user.
    path = f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin"
    verify = run(
        ["systemd-analyze", "verify", "--user", str(target / "hookd.socket"), str(target / "hookd.service")],
        tmp_path,
        PATH=path,
        XDG_RUNTIME_DIR=str(runtime),
        SYSTEMD_LOG_LEVEL="notice",
    )
    assert verify.returncode == 0 and verify.stdout.strip() == verify.stderr.strip() == "", verify.stderr
