"""The command table the `hookd` command builds one parser from holds every module's commands, and a
command's parser alone reads its arguments as the whole parser does."""

from __future__ import annotations

import argparse
import importlib

import pytest

from hookd.cli import COMMANDS, build_parser


def test_the_table_names_every_command_each_module_defines() -> None:
    for module, commands in COMMANDS.items():
        sub = argparse.ArgumentParser(prog="hookd").add_subparsers(dest="command")
        importlib.import_module(f"hookd.cli.{module}").add(sub)
        assert tuple(sub.choices) == commands, module


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action.choices[name]


@pytest.mark.parametrize("command", [c for commands in COMMANDS.values() for c in commands])
def test_a_command_built_alone_is_the_command_of_the_whole_parser(command: str) -> None:
    alone, whole = build_parser(command), build_parser()
    assert _subparser(alone, command).format_help() == _subparser(whole, command).format_help()
    assert alone.format_usage() == whole.format_usage()


def test_a_word_that_is_no_command_gets_the_whole_parser_and_its_choices() -> None:
    parser = build_parser("servee")
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(action.choices) == {c for commands in COMMANDS.values() for c in commands}
