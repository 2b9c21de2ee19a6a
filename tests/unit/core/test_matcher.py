"""`match` filters: pure logic, plus adversarial payloads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.core.matcher import Matcher, compile_match


def test_no_match_means_no_filter():
    assert compile_match({}) is None and compile_match(None) is None


def test_top_level_field_regex():
    m = Matcher({"toolName": "execute_command|write_file"})
    assert m({"toolName": "execute_command"})
    assert m({"toolName": "write_file"})
    assert not m({"toolName": "read_file"})
    assert not m({})


def test_search_not_fullmatch_and_anchors_for_exact():
    assert Matcher({"toolName": "read"})({"toolName": "read_file"})
    assert not Matcher({"toolName": "^read$"})({"toolName": "read_file"})


def test_dotted_path():
    m = Matcher({"args.command": r"rm\s+-rf"})
    assert m({"args": {"command": "sudo rm -rf /"}})
    assert not m({"args": {"command": "ls"}})
    assert not m({"args": "rm -rf"})  # not a mapping: the path does not exist
    assert not m({"args": {}})


def test_list_index_and_any_item():
    assert Matcher({"args.files.1": r"\.py$"})({"args": {"files": ["a.txt", "b.py"]}})
    assert not Matcher({"args.files.5": "."})({"args": {"files": ["a"]}})
    assert Matcher({"args.files": r"\.py$"})({"args": {"files": ["a.txt", "b.py"]}})
    assert not Matcher({"args.files": r"\.py$"})({"args": {"files": ["a.txt", {"x": "b.py"}]}})


def test_scalars_match_as_json_text():
    assert Matcher({"duration": "^12$"})({"duration": 12})
    assert Matcher({"ok": "^true$"})({"ok": True})
    assert Matcher({"v": "^null$"})({"v": None})
    assert not Matcher({"args": "command"})({"args": {"command": "x"}})  # a mapping never matches


def test_every_rule_must_match():
    m = Matcher({"toolName": "^execute_command$", "args.command": "git push"})
    assert m({"toolName": "execute_command", "args": {"command": "git push --force"}})
    assert not m({"toolName": "execute_command", "args": {"command": "git status"}})
    assert not m({"toolName": "write_file", "args": {"command": "git push"}})


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=10)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=15,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=5), json_values, max_size=4), st.text(alphabet="ab.0", min_size=1, max_size=6))
def test_any_payload_gives_a_boolean(payload, path):
    if any(not part for part in path.split(".")):
        return
    assert Matcher({path: "a"})(payload) in (True, False)
