"""A built-in hook in a hook file (`builtin: PACK`, docs/guards.md): its spellings, and every problem
`hookd check` words for it, naming the field down to the option and list item, with a fix where one
answer is possible."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.config import fixes
from hookd.config.userconfig import ConfigInvalid, Problem, parse
from hookd.guards.catalogue import rules
from hookd.guards.model import PACKS
from hookd.guards.options import OptionsError, policy

BASE = """\
hooks:
  - name: guards
    point: tool.approval.pre
    enabled: true
"""


def text(extra: str) -> str:
    return BASE + textwrap.indent(textwrap.dedent(extra), "    ")


def problems(source: str) -> list[Problem]:
    with pytest.raises(ConfigInvalid) as exc:
        parse(source, "hooks.yaml")
    return exc.value.problems


def one(source: str) -> Problem:
    found = problems(source)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


@pytest.mark.parametrize(
    ("written", "packs"),
    [("builtin: git", ["git"]), ("builtin: [files, git]", ["files", "git"]), ("builtin: default", ["default"])],
)
def test_each_spelling_of_builtin_makes_a_decision_hook_with_no_command(written: str, packs: list[str]) -> None:
    [spec] = parse(text(written), "hooks.yaml")
    assert spec.builtin == packs and spec.type == "decision" and spec.command == ""


def test_options_are_kept_as_written_and_type_decision_may_be_stated() -> None:
    [spec] = parse(
        text(
            """\
            type: decision
            builtin: git
            options:
              allow: [git.reset-hard]
              ask: [git.*]
              protected_branches: [main, release]
              force_with_lease: deny
            """
        ),
        "hooks.yaml",
    )
    assert spec.options == {
        "allow": ["git.reset-hard"],
        "ask": ["git.*"],
        "protected_branches": ["main", "release"],
        "force_with_lease": "deny",
    }
    assert policy(spec.options).ask == ("git.*",)


def test_an_unknown_pack_is_named_with_its_fix() -> None:
    p = one(text("builtin: gti\n"))
    assert p.field == "builtin" and "unknown pack 'gti'" in p.message and "git" in (p.suggestion or "")
    fixed = fixes.fix(text("builtin: gti\n"), "hooks.yaml")
    assert "builtin: git\n" in fixed.text and not fixed.left


def test_an_unknown_pack_in_a_list_names_its_item() -> None:
    p = one(text("builtin: [files, secret]\n"))
    assert p.field == "builtin[1]" and (p.line, p.column) == (5, 22), p
    assert "secrets" in (p.suggestion or "")


@pytest.mark.parametrize("value", ["[]", "3", "{git: true}", "[git, 4]"])
def test_builtin_that_is_not_pack_names_is_refused(value: str) -> None:
    found = problems(text(f"builtin: {value}\n"))
    assert found and all(p.field and p.field.startswith("builtin") for p in found), [str(p) for p in found]


def test_an_unknown_rule_in_allow_is_named_down_to_the_item_with_a_fix() -> None:
    source = text("builtin: git\noptions:\n  allow: [git.reset-hard, git.reset-hrad]\n")
    p = one(source)
    assert p.field == "options.allow[1]" and "unknown rule 'git.reset-hrad'" in p.message, p
    assert "git.reset-hard" in (p.suggestion or "")
    fixed = fixes.fix(source, "hooks.yaml")
    assert "allow: [git.reset-hard, git.reset-hard]" in fixed.text and not fixed.left


def test_a_rule_of_a_pack_the_hook_does_not_run_is_a_problem() -> None:
    p = one(text("builtin: files\noptions:\n  ask: [git.reset-hard]\n"))
    assert p.field == "options.ask[0]" and "git pack" in p.message and "add git to builtin" in (p.suggestion or "")


def test_a_whole_pack_may_be_allowed_or_asked_by_pack_star() -> None:
    [spec] = parse(text("builtin: default\noptions:\n  ask: [git.*, infra.*]\n"), "hooks.yaml")
    assert spec.options["ask"] == ["git.*", "infra.*"]


def test_an_unknown_option_is_named_with_a_fix_when_one_option_is_close() -> None:
    p = one(text("builtin: git\noptions:\n  protected_branch: [main]\n"))
    assert p.field == "options" and "unknown option 'protected_branch'" in p.message
    assert "protected_branches" in (p.suggestion or "") and p.fix is None  # protected_paths is close too
    source = text("builtin: git\noptions:\n  alow: [git.reset-hard]\n")
    assert "allow: [git.reset-hard]" in fixes.fix(source, "hooks.yaml").text


@pytest.mark.parametrize(
    ("option", "field", "words"),
    [
        ("force_with_lease: maybe", "options.force_with_lease", "'allow' or 'deny'"),
        ("allow: git.reset-hard", "options.allow", "list of strings"),
        ("protected_paths: ['']", "options.protected_paths", "non-empty string"),
        ("protected_branches: [3]", "options.protected_branches", "non-empty string"),
    ],
)
def test_bad_option_values_name_the_option(option: str, field: str, words: str) -> None:
    p = one(text(f"builtin: git\noptions:\n  {option}\n"))
    assert p.field == field and words in p.message, p


def test_options_must_be_a_mapping() -> None:
    p = one(text("builtin: git\noptions: [allow]\n"))
    assert p.field == "options" and "mapping" in p.message


@pytest.mark.parametrize("field", ["command: /bin/true", "args: [x]", "env: {A: b}", "cwd: /tmp", "mode: persistent", "timeout: 5"])
def test_a_builtin_hook_has_no_command_fields(field: str) -> None:
    p = one(text(f"builtin: git\n{field}\n"))
    assert p.field == field.split(":")[0] and "a built-in hook has no" in p.message and p.suggestion == f"remove {p.field}"


def test_a_builtin_hook_is_never_an_observer() -> None:
    p = one(text("builtin: git\ntype: observer\n"))
    assert p.field == "type" and "decision hook" in p.message


def test_options_on_a_command_hook_are_a_problem() -> None:
    p = one(text("type: decision\ncommand: /bin/true\noptions: {allow: [git.reset-hard]}\n"))
    assert p.field == "options" and "built-in hook" in p.message


def test_a_hook_without_command_or_builtin_says_both_ways() -> None:
    p = one(text("type: decision\n"))
    assert p.field == "command" and "builtin: default" in (p.suggestion or "")


def test_shadow_on_error_priority_match_and_group_apply_to_a_builtin_hook() -> None:
    [spec] = parse(
        text("builtin: git\nshadow: true\non_error: deny\npriority: 50\nmatch: {toolName: '^execute_command$'}\n"),
        "hooks.yaml",
    )
    assert (spec.shadow, spec.on_error, spec.priority, spec.match) == (True, "deny", 50, {"toolName": "^execute_command$"})


_names = st.one_of(
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=20),
    st.sampled_from([r for p in PACKS for r, _ in rules(p)]),
)


@settings(max_examples=200, deadline=None)
@given(allow=st.lists(_names, max_size=4), ask=st.lists(_names, max_size=4))
def test_the_file_accepts_exactly_the_options_the_packs_accept(allow: list[str], ask: list[str]) -> None:
    """Whatever the validator accepts, the packs' own reading accepts too: a file never loads with
    options the daemon would refuse when it makes the hook."""
    import json

    source = text(f"builtin: default\noptions:\n  allow: {json.dumps(allow)}\n  ask: {json.dumps(ask)}\n")
    try:
        [spec] = parse(source, "hooks.yaml")
    except ConfigInvalid as exc:
        assert all(p.field and p.field.startswith("options") for p in exc.problems), [str(p) for p in exc.problems]
        with pytest.raises(OptionsError):
            policy({"allow": allow, "ask": ask})
        return
    assert policy(spec.options) == policy({"allow": allow, "ask": ask})


def test_a_file_without_builtin_hooks_is_read_without_the_packs_or_their_parser() -> None:
    """The wheel's build writes the manual page from the parser where only msgspec and PyYAML are
    installed, and `hookd check` of an ordinary file should not pay for the packs: neither imports them."""
    import subprocess
    import sys

    script = textwrap.dedent(
        """\
        import sys
        sys.modules["tree_sitter"] = None  # not installed: importing it fails
        sys.modules["tree_sitter_bash"] = None
        from hookd.config.userconfig import parse
        [spec] = parse("hooks:\\n  - {name: g, point: tool.approval.pre, type: decision, command: c, enabled: true}\\n", "h.yaml")
        from hookd.cli import build_parser
        build_parser().format_help()
        from hookd.cli.helptopics import TOPICS
        for _, make in TOPICS.values():
            make()
        assert "hookd.guards" not in sys.modules, "the packs were imported"
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
