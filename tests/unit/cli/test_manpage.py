"""hookd.1, generated from the parser: every command and option in it, in roff that formatters read without a warning.

tests/e2e/test_installed_docs.py checks the page a wheel installs; this one the generator, on the checkout's parser.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.cli import build_parser
from hookd.cli.manpage import render


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield " ".join((*path, name)), sub
                yield from _commands(sub, (*path, name))


def test_every_command_and_every_option_of_the_parser_is_in_the_page() -> None:
    text = render()
    commands = dict(_commands(build_parser()))
    assert {"check", "bridge install", "completion", "help"} <= set(commands)
    for name, parser in commands.items():
        assert '.SS "' + name.replace("-", "\\-") + '"' in text, name
        for action in parser._actions:
            for option in action.option_strings:
                shown = "\\fB" + option.replace("-", "\\-") + "\\fR" in text
                assert shown == (action.help != argparse.SUPPRESS), (name, option)


def test_nothing_of_the_machine_that_built_it_is_in_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    first = render()
    home = os.path.expanduser("~")
    assert len(home) < 2 or home not in first
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("COLUMNS", "33")
    assert render() == first
    assert str(tmp_path) not in first


def test_text_that_looks_like_roff_is_shown_as_text() -> None:
    parser = argparse.ArgumentParser(prog="hookd", description=".TH not a title\n'quote \\ backslash — dash")
    sub = parser.add_subparsers()
    cmd = sub.add_parser("x-y", help="a command", description=".SH not a section")
    cmd.add_argument("--a-b", help="100%% of \\fB")
    text = render(parser)
    assert "\n.TH not" not in text and "\n.SH not" not in text and "\n'quote" not in text
    assert "\\e" in text and "\\[u2014]" in text and "\\fB\\-\\-a\\-b\\fR" in text


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
def test_groff_reads_the_page_without_a_warning(tmp_path: Path) -> None:
    page = tmp_path / "hookd.1"
    page.write_text(render())
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", str(page)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
