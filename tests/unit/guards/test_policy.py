"""Policies from a builtin hook's options: rules allowed or asked by name, and every bad option named."""

from __future__ import annotations

import re

import pytest

from hookd.guards.catalogue import RULES, rules
from hookd.guards.model import DEFAULT, PACKS
from hookd.guards.options import OptionsError, policy
from hookd.guards.policy import Policy

from .guard import shell


def test_the_packs_are_five_and_default_is_all_of_them() -> None:
    assert PACKS == ("files", "git", "infra", "secrets", "publish") and DEFAULT == PACKS


def test_every_rule_is_named_pack_dot_kebab_and_summarised() -> None:
    for pack in PACKS:
        listed = rules(pack)
        assert listed, pack
        for name, summary in listed:
            assert re.fullmatch(rf"{pack}\.[a-z0-9]+(-[a-z0-9]+)*", name), name
            assert (summary and summary[0].islower()) or summary[0].isupper()
    assert sum(len(rules(p)) for p in PACKS) == len(RULES)
    with pytest.raises(KeyError):
        rules("nope")


def test_options_become_a_policy() -> None:
    made = policy({"allow": ["git.reset-hard"], "ask": ["files.*"], "protected_branches": ["main", "prod"], "force_with_lease": "deny"})
    assert made == Policy(allow=("git.reset-hard",), ask=("files.*",), protected_branches=("main", "prod"), force_with_lease="deny")
    assert policy(None) == Policy() and policy({}) == Policy()


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"allow": ["git.nope"]}, "allow"),
        ({"ask": ["nope.*"]}, "ask"),
        ({"allow": "git.reset-hard"}, "allow"),
        ({"force_with_lease": "maybe"}, "force_with_lease"),
        ({"protected_paths": [""]}, "protected_paths"),
        ({"protected_branches": [3]}, "protected_branches"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_options_name_the_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(OptionsError, match=field):
        policy(options)


def test_options_that_are_not_a_mapping_are_an_error() -> None:
    with pytest.raises(OptionsError):
        policy(["allow"])  # type: ignore[arg-type]


def test_an_allowed_rule_never_fires_and_the_next_finding_comes_through() -> None:
    assert shell("git reset --hard", policy=Policy(allow=("git.reset-hard",))) is None
    assert shell("git reset --hard", policy=Policy(allow=("git.*",))) is None
    found = shell("git reset --hard && rm -rf src", policy=Policy(allow=("git.*",)))
    assert found is not None and found.rule == "files.recursive-delete"


def test_an_asked_rule_answers_ask() -> None:
    found = shell("npm publish", policy=Policy(ask=("publish.npm-publish",)))
    assert found is not None and found.decision == "ask"
    found = shell("npm publish", policy=Policy(ask=("publish.*",)))
    assert found is not None and found.decision == "ask"
    found = shell("rm -rf src", policy=Policy(ask=("publish.*",)))
    assert found is not None and found.decision == "deny"


def test_only_the_chosen_packs_run() -> None:
    assert shell("npm publish", packs=("files", "git")) is None
    assert shell("npm publish", packs=("publish",)) is not None
    assert shell("npm publish", packs=("publish", "nope")) is not None


def test_first_finding_in_pack_order() -> None:
    found = shell("npm publish; rm -rf src", packs=("publish", "files"))
    assert found is not None and found.pack == "publish"
    found = shell("npm publish; rm -rf src", packs=("files", "publish"))
    assert found is not None and found.pack == "files"


def test_too_deep_is_a_finding_of_the_first_pack_and_can_be_allowed() -> None:
    deep = "eval " * 20 + "ls"
    found = shell(deep)
    assert found is not None and found.rule == "files.too-deep" and "levels deep" in found.reason
    found = shell(deep, policy=Policy(allow=("files.too-deep",)))
    assert found is not None and found.rule == "git.too-deep"


def test_a_context_with_values_of_the_wrong_type_is_read_as_unknown() -> None:
    from hookd.guards.check import check
    from hookd.guards.model import Context

    odd = Context(3, b"/p", None)  # type: ignore[arg-type]
    found = check(PACKS, "execute_command", {"command": "rm -rf src"}, odd, Policy())
    assert found is not None and found.rule == "files.recursive-delete"


def test_a_finding_on_a_file_tool_names_the_tool_and_the_path() -> None:
    from hookd.guards.check import check
    from hookd.guards.model import Context

    found = check(PACKS, "read_file", {"file_path": "/h/.ssh/id_rsa"}, Context("/h/p", "/h/p", "/h"), Policy())
    assert found is not None and found.command == "read_file /h/.ssh/id_rsa"
