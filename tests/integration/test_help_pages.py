"""`hookd help PAGE`: every page of the documentation in the terminal, and help texts that lead there.

From the checkout (the test venv's editable install); tests/e2e/test_installed_docs.py runs the same
from a wheel installed into a fresh virtualenv, where no source tree is at hand.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator

import pytest

from hookd.cli import build_parser

from ..conftest import ROOT, Env

PAGES = sorted((ROOT / "docs").glob("*.md"))


def test_every_page_of_docs_is_a_help_topic_by_name_and_by_path(env: Env) -> None:
    listed = json.loads(env.hookd("help", "--json").stdout)["documents"]
    assert set(listed) == {p.stem for p in PAGES} | {"readme"}
    overview = env.hookd("help").stdout
    for page in PAGES:
        assert re.search(rf"^  {re.escape(page.stem)} +\S", overview, re.M), page.stem
        r = env.hookd("help", page.stem)
        assert r.returncode == 0, (page.stem, r.stderr)
        assert r.stdout.endswith(page.read_text().rstrip() + "\n"), page.stem
    for name in ("observe.md", "docs/observe.md", "README.md"):
        assert env.hookd("help", name).stdout == env.hookd("help", name.removeprefix("docs/").removesuffix(".md")).stdout
    assert env.hookd("help", "readme").stdout == (ROOT / "README.md").read_text().rstrip() + "\n"


def test_a_page_named_as_a_command_says_where_the_command_help_is(env: Env) -> None:
    r = env.hookd("help", "replay")
    assert r.stdout.startswith("(The page replay; the command's options: hookd replay --help.)\n\n# Replay")
    assert env.hookd("help", "tail").stdout == env.hookd("tail", "--help").stdout  # no page of that name


def test_the_main_help_leads_to_hookd_help_not_to_a_source_tree(env: Env) -> None:
    text = " ".join(env.hookd("--help").stdout.split())
    assert "source tree" not in text
    assert "`hookd help` lists the topics" in text and "`man hookd`" in text


def _help_texts(parser: argparse.ArgumentParser) -> Iterator[str]:
    """The --help of the parser and of each of its subcommands, at any depth."""
    yield parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _help_texts(sub)


def test_every_page_a_help_text_names_opens_with_hookd_help(env: Env, monkeypatch: pytest.MonkeyPatch) -> None:
    """Help texts say "docs/bridges.md"; `hookd help docs/bridges.md` shows it, wherever hookd was installed from."""
    monkeypatch.setenv("COLUMNS", "1000")  # argparse wraps at the terminal's width, and may break a name at its hyphen
    named = {page for text in _help_texts(build_parser()) for page in re.findall(r"docs/[a-z-]+\.md", text)}
    assert len(named) > 3, f"help texts name {named}: this test would prove little"
    for page in sorted(named):
        r = env.hookd("help", page)
        assert r.returncode == 0 and (ROOT / page).read_text().rstrip() in r.stdout, page
    hooks = env.hookd("help", "hooks").stdout
    assert "`hookd help warm-hooks`" in " ".join(hooks.split()) and "docs/" not in hooks


def test_an_unknown_page_is_not_found_with_the_nearest_names(env: Env) -> None:
    r = env.hookd("help", "obsreve")
    assert r.returncode == 4 and "did you mean observe" in r.stderr
