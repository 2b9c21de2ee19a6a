"""Every message of the hook file validator: what it says, where it points, what it suggests."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.config.userconfig import ConfigInvalid, Problem, parse
from hookd.config.validator import KNOWN_KEYS

GOOD = """\
hooks:
  - name: guard
    point: tool.approval.pre
    type: decision
    command: node
    enabled: true
"""


def problems(text: str) -> list[Problem]:
    with pytest.raises(ConfigInvalid) as exc:
        parse(textwrap.dedent(text), "hooks.yaml")
    return exc.value.problems


def one(text: str) -> Problem:
    found = problems(text)
    assert len(found) == 1, [str(p) for p in found]
    return found[0]


def hook(extra: str, base: str = GOOD) -> str:
    """GOOD with ``extra`` lines added to its hook (indented like its fields)."""
    return base + textwrap.indent(textwrap.dedent(extra), "    ")


def test_the_seed_example_is_valid():
    text = """\
    hooks:
      - name: log-llm-calls
        description: 记录所有 LLM 调用
        point: llm.request.before
        type: observer
        command: node
        args: ["./scripts/log-llm.js"]
        priority: 10
        enabled: true

      - name: block-dangerous-commands
        description: 阻止危险命令
        point: tool.approval.pre
        type: decision
        command: node
        args: ["./scripts/check-command.js"]
        env:
          BLOCKED_COMMANDS: "rm,rmdir,format"
        priority: 100
        enabled: true
    """
    specs = parse(textwrap.dedent(text), "hooks.yaml")
    assert [s.name for s in specs] == ["log-llm-calls", "block-dangerous-commands"]
    assert specs[1].env == {"BLOCKED_COMMANDS": "rm,rmdir,format"}


def test_hookd_options_are_valid():
    specs = parse(
        hook("""\
        timeout: 2.5
        on_error: deny
        cwd: scripts
        match: {toolName: "execute_command|write_file", args.command: "rm "}
        """),
        "hooks.yaml",
    )
    assert specs[0].timeout == 2.5 and specs[0].on_error == "deny" and specs[0].cwd == "scripts"
    assert specs[0].match == {"toolName": "execute_command|write_file", "args.command": "rm "}


@pytest.mark.parametrize("text", ["", "# nothing\n", "hooks:\n", "hooks: []\n"])
def test_empty_files_have_no_hooks(text):
    assert parse(text, "hooks.yaml") == []


# ------------------------------------------------------------------ file shape


def test_invalid_yaml_points_at_the_error():
    p = one("hooks:\n  - name: a\n    point: [unclosed\n")
    assert p.message.startswith("not valid YAML")
    assert p.line is not None and p.line >= 3


def test_top_level_must_be_a_mapping():
    p = one("- name: a\n")
    assert "must be a mapping with one key, 'hooks'" in p.message and (p.line, p.column) == (1, 1)


def test_unknown_top_level_key_suggests_hooks():
    p = one("hook:\n  - name: a\n")
    assert "unknown top-level key 'hook'" in p.message and p.suggestion == "did you mean 'hooks'?"
    assert (p.line, p.column) == (1, 1)


def test_hooks_must_be_a_list():
    p = one("hooks:\n  name: a\n")
    assert "'hooks' must be a list" in p.message and p.field == "hooks" and p.line == 2


def test_each_hook_must_be_a_mapping():
    p = one("hooks:\n  - just a string\n")
    assert "each hook must be a mapping" in p.message and p.hook == "#1" and (p.line, p.column) == (2, 5)


def test_unsafe_tags_are_refused():
    p = one("hooks:\n  - !!python/object:os.system {}\n")
    assert p.line == 2 and "not allowed" in p.message


# ------------------------------------------------------------------ fields


def test_unknown_key_names_the_known_keys_and_suggests():
    p = one(hook("descripton: x\n"))
    assert p.field == "descripton" and p.hook == "guard"
    assert "unknown field 'descripton'" in p.message and all(k in p.message for k in KNOWN_KEYS)
    assert p.suggestion == "did you mean 'description'?"
    assert (p.line, p.column) == (7, 5)


@pytest.mark.parametrize("field", ["name", "point", "type", "command", "enabled"])
def test_each_required_field(field):
    text = "\n".join(line for line in GOOD.splitlines() if not line.strip().startswith(f"{field}:")) + "\n"
    if field == "name":
        text = GOOD.replace("- name: guard\n    point", "- point")
    p = one(text)
    assert p.field == field and f"required field {field!r} is missing" in p.message
    assert (p.line, p.column) == (2, 5)  # the hook's first line


def test_a_misspelled_required_field_is_pointed_out():
    found = problems(GOOD.replace("command:", "comand:"))
    missing = next(p for p in found if p.field == "command")
    assert missing.suggestion == "is 'comand' a misspelling of it?"


def test_missing_enabled_says_how_to_fix():
    p = one(GOOD.replace("    enabled: true\n", ""))
    assert "enabled: true" in (p.suggestion or "")


def test_name_must_be_a_string():
    p = one(GOOD.replace("name: guard", "name: 42"))
    assert p.field == "name" and "name must be a string, got int 42" in p.message and p.suggestion == 'quote it: "42"'
    assert (p.line, p.column) == (2, 11)


def test_yaml_booleans_are_quoted_as_written():
    p = one(GOOD.replace("name: guard", "name: off"))
    assert "got boolean false" in p.message and p.suggestion == 'quote it: "off"'


def test_name_must_not_be_empty():
    p = one(GOOD.replace("name: guard", 'name: ""'))
    assert p.field == "name" and "must not be empty" in p.message


def test_name_without_surrounding_spaces():
    p = one(GOOD.replace("name: guard", 'name: " guard"'))
    assert "spaces" in p.message and p.suggestion == "write 'guard'"


def test_description_must_be_a_string():
    p = one(hook("description: [a]\n"))
    assert p.field == "description" and "description must be a string, got a list" in p.message


def test_unknown_point_suggests_the_nearest():
    p = one(GOOD.replace("tool.approval.pre", "tool.aproval.pre"))
    assert p.field == "point" and "unknown hook point 'tool.aproval.pre'" in p.message
    assert "'tool.approval.pre'" in (p.suggestion or "") and (p.line, p.column) == (3, 12)


def test_a_daemon_event_as_a_hooks_point_says_what_it_is():
    p = one(GOOD.replace("tool.approval.pre", "hookd.config.reloaded"))
    assert p.field == "point" and "'hookd.config.reloaded' is the daemon's own event" in p.message
    assert "catch-all point `event`" in p.message and not p.suggestion


def test_custom_points_are_free():
    assert parse(GOOD.replace("tool.approval.pre", "custom.my.point"), "hooks.yaml")[0].point == "custom.my.point"


def test_type_typo_suggests_decision():
    p = one(GOOD.replace("type: decision", "type: decison"))
    assert p.field == "type" and "type must be 'observer' or 'decision'" in p.message
    assert p.suggestion == "did you mean 'decision'?" and (p.line, p.column) == (4, 11)


def test_decision_hook_on_an_observer_point():
    p = one(GOOD.replace("tool.approval.pre", "llm.request.before"))
    assert p.field == "type" and "'llm.request.before' is an observer point" in p.message
    assert (p.suggestion or "").startswith("use `type: observer`") and p.line == 4


def test_command_as_a_list_says_to_use_args():
    p = one(GOOD.replace("command: node", "command: [node, x.js]"))
    assert p.field == "command" and "got a list" in p.message and "args" in (p.suggestion or "")


def test_command_must_not_be_empty():
    p = one(GOOD.replace("command: node", 'command: "  "'))
    assert p.field == "command" and "must not be empty" in p.message


def test_args_must_be_a_list():
    p = one(hook("args: x.js\n"))
    assert p.field == "args" and "args must be a list of strings" in p.message and p.suggestion == "write args: ['x.js']"


def test_args_items_must_be_strings_and_point_at_the_item():
    p = one(hook('args: ["a", 5]\n'))
    assert "args[1] must be a string, got int 5" in p.message and p.suggestion == 'quote it: "5"'
    assert (p.line, p.column) == (7, 17)


def test_env_must_be_a_mapping():
    p = one(hook("env: [A]\n"))
    assert p.field == "env" and "env must be a mapping" in p.message


def test_env_values_must_be_strings():
    p = one(hook("env:\n  DEBUG: 1\n"))
    assert "env DEBUG must be a string, got int 1" in p.message and p.suggestion == 'quote it: "1"'
    assert (p.line, p.column) == (8, 14)


def test_env_names_must_be_valid():
    p = one(hook('env: {"A=B": x}\n'))
    assert "not a valid variable name" in p.message


def test_priority_must_be_whole():
    p = one(hook("priority: 1.5\n"))
    assert p.field == "priority" and "whole number" in p.message and p.suggestion == "write 2"


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "1e400", str(2**60)])
def test_priority_extremes(value):
    assert one(hook(f"priority: {value}\n")).field == "priority"


def test_priority_is_not_a_boolean():
    p = one(hook("priority: true\n"))
    assert p.field == "priority" and "boolean true" in p.message


def test_enabled_must_be_boolean():
    p = one(GOOD.replace("enabled: true", "enabled: sometimes"))
    assert p.field == "enabled" and "enabled must be true or false, got string 'sometimes'" in p.message


@pytest.mark.parametrize("value", ["0", "-1", "4000", '"10"', "true"])
def test_timeout_range_and_type(value):
    p = one(hook(f"timeout: {value}\n"))
    assert p.field == "timeout" and "timeout must be a number of seconds" in p.message


def test_timeout_as_text_gets_an_example():
    assert one(hook('timeout: "10"\n')).suggestion == "write seconds as a number, e.g. timeout: 10"


def test_on_error_typo():
    p = one(hook("on_error: dny\n"))
    assert p.field == "on_error" and "on_error must be one of continue, deny, ask" in p.message
    assert p.suggestion == "did you mean 'deny'?"


def test_on_error_on_an_observer():
    text = GOOD.replace("type: decision", "type: observer")
    p = one(hook("on_error: deny\n", text))
    assert p.field == "on_error" and "decision hooks only" in p.message


def test_match_must_be_a_mapping():
    p = one(hook("match: toolName\n"))
    assert p.field == "match" and "match must be a mapping" in p.message and "toolName" in (p.suggestion or "")


def test_match_pattern_must_compile():
    p = one(hook('match: {toolName: "("}\n'))
    assert p.field == "match" and "not a valid regular expression" in p.message and (p.line, p.column) == (7, 23)


def test_match_pattern_must_be_a_string():
    p = one(hook("match: {count: 3}\n"))
    assert "must be a string" in p.message and p.suggestion == 'quote it: "3"'


def test_match_key_must_be_a_path():
    p = one(hook('match: {"args..command": x}\n'))
    assert "dotted path" in p.message


def test_cwd_must_be_a_string():
    p = one(hook("cwd: 3\n"))
    assert p.field == "cwd" and "cwd must be a string" in p.message


def test_duplicate_names_in_a_file():
    text = GOOD + GOOD.split("\n", 1)[1]
    p = one(text)
    assert p.field == "name" and "duplicate hook name 'guard' (first defined at line 2)" in p.message
    assert (p.line, p.column) == (7, 11)


def test_a_key_written_twice():
    p = one(hook("name: other\n"))
    assert "key 'name' appears twice" in p.message and p.line == 7


def test_every_problem_is_reported_at_once_in_line_order():
    text = """\
    hooks:
      - name: a
        point: nope
        type: decison
        command: x
        enabled: true
      - name: b
        point: tool.approval.pre
        type: decision
        command: x
        enabled: maybe
    """
    found = problems(text)
    assert [(p.hook, p.field) for p in found] == [("a", "point"), ("a", "type"), ("b", "enabled")]
    assert [p.line for p in found] == sorted(p.line for p in found)


def test_problem_text_is_file_line_column():
    p = one(GOOD.replace("type: decision", "type: decison"))
    assert str(p) == (
        "hooks.yaml:4:11: hook 'guard': field 'type': type must be 'observer' or 'decision', "
        "got string 'decison' (did you mean 'decision'?)"
    )


def test_merge_keys_are_resolved():
    text = """\
    base: &base
      type: observer
      command: x
      enabled: true
    """
    # a top-level anchor key is not allowed, but anchors inside the list work:
    assert problems(text)
    text = """\
    hooks:
      - &first
        name: a
        point: turn.end
        type: observer
        command: x
        enabled: true
      - <<: *first
        name: b
    """
    assert [s.name for s in parse(textwrap.dedent(text), "hooks.yaml")] == ["a", "b"]


# ------------------------------------------------------------------ adversarial

yaml_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
yaml_values = st.recursive(
    yaml_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_either_valid_or_a_list_of_problems(text):
    try:
        parse(text, "f.yaml")
    except ConfigInvalid as exc:
        assert exc.problems and all(isinstance(p, Problem) and p.message for p in exc.problems)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from([*KNOWN_KEYS, "x"]), yaml_values, max_size=8), max_size=4))
def test_any_structure_is_either_valid_or_a_list_of_problems(entries):
    import yaml

    text = yaml.safe_dump({"hooks": entries})
    try:
        specs = parse(text, "f.yaml")
    except ConfigInvalid as exc:
        assert exc.problems and all(p.line is None or p.line >= 1 for p in exc.problems)
    else:
        assert len(specs) == len(entries)
