"""The fixes `hookd check --fix` applies: only where one answer is possible, and only at the spot.

A fix replaces the text of one scalar where the validator read it, so a file keeps its comments,
quoting, spacing and line endings. The property tests write valid hook files in many layouts,
misspell one word of them, and check that fixing gives back the very bytes that were written.
"""

from __future__ import annotations

import textwrap

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from hookd.config import fixes
from hookd.config.hookchecks import COMBINE, FORMATS, HOOK_TYPES, ON_ERROR
from hookd.config.problems import only_match, typo_of
from hookd.config.validator import KNOWN_KEYS, ConfigInvalid, validate
from hookd.core.points import POINTS


def problems(text: str) -> list:
    try:
        validate(text, "hooks.yaml")
    except ConfigInvalid as exc:
        return exc.problems
    return []


def test_a_misspelt_key_with_one_close_match_is_renamed_in_place_and_nothing_else_moves() -> None:
    text = textwrap.dedent(
        """\
        # my guard, do not touch this comment: timout
        hooks:
          - name: guard        # the name
            point: tool.approval.pre
            type:   decison    # spaced as I like
            command: /bin/true
            timout: 10
            enabled: true
        """
    )
    out = fixes.fix(text, "hooks.yaml")
    assert out.text == text.replace("    timout:", "    timeout:").replace("type:   decison", "type:   decision")
    assert [(p.field, p.fix.old, p.fix.new) for p in out.fixed] == [("type", "decison", "decision"), ("timout", "timout", "timeout")]
    assert out.left == [] and problems(out.text) == []


def test_crlf_line_endings_and_quoting_are_kept() -> None:
    lines = [
        "hooks:",
        '  - name: "guard"',
        "    point: 'tool.approval.pre'",
        '    type: "decison"',
        "    command: /bin/true",
        "    enabled: true",
    ]
    text = "\r\n".join(lines) + "\r\n"
    out = fixes.fix(text, "hooks.yaml")
    assert out.text == text.replace('"decison"', '"decision"')


def test_what_has_no_single_answer_is_left_for_the_author() -> None:
    text = textwrap.dedent(
        """\
        hooks:
          - name: guard
            point: tool.approval.p
            type: decision
            command: /bin/true
            on_error: block
            priority: 1.5
        """
    )
    out = fixes.fix(text, "hooks.yaml")
    # pre or post? block is none of continue/deny/ask; 1 or 2? enabled true or false? The author says.
    assert out.text == text and out.fixed == []
    assert sorted(p.field for p in out.left) == ["enabled", "on_error", "point", "priority"]


def test_a_key_the_hook_already_has_is_not_made_twice() -> None:
    text = "hooks:\n  - {name: g, point: custom.x, type: observer, command: c, enabled: true, timeout: 5, timout: 6}\n"
    assert fixes.fix(text, "hooks.yaml").fixed == []


def test_a_fix_reveals_the_next_and_both_are_applied() -> None:
    text = 'hooks:\n  - {name: g, point: custom.x, tpye: observer, command: c, enabled: true, timout: "5"}\n'
    out = fixes.fix(text, "hooks.yaml")
    assert out.text == "hooks:\n  - {name: g, point: custom.x, type: observer, command: c, enabled: true, timeout: 5}\n"
    assert out.left == []


@pytest.mark.parametrize(
    ("written", "fixed"),
    [
        ("description: off", 'description: "off"'),  # YAML 1.1 reads off as false: quoted as written
        ('name: " guard "', 'name: "guard"'),
        ("priority: 10.0", "priority: 10"),
        ('timeout: "10"', "timeout: 10"),
        ("point: tool.aproval.pre", "point: tool.approval.pre"),
        ("point: shell.envv", "point: shell.env"),
        ("on_error: dny", "on_error: deny"),
        ("format: claude-cod", "format: claude-code"),
    ],
)
def test_each_kind_of_fix(written: str, fixed: str) -> None:
    key = written.split(":")[0]
    base = {"name": "guard", "point": "tool.approval.pre", "type": "decision", "command": "/bin/true", "enabled": "true"}
    base[key] = written.split(": ", 1)[1]
    text = "hooks:\n  - " + "\n    ".join(f"{k}: {v}" for k, v in base.items()) + "\n"
    out = fixes.fix(text, "hooks.yaml")
    assert out.text == text.replace(written, fixed), out.left
    assert out.left == []


def test_an_anchor_or_an_alias_is_not_edited() -> None:
    text = (
        "hooks:\n"
        "  - {name: g, point: custom.x, type: &t decison, command: c, enabled: true}\n"
        "  - {name: h, point: custom.y, type: *t, command: c, enabled: true}\n"
    )
    assert fixes.fix(text, "hooks.yaml").text == text


# ----------------------------------------------------------------- properties


def _osa(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@given(st.text("abc.", max_size=6), st.text("abc.", max_size=6))
def test_a_typing_slip_is_one_edit(a: str, b: str) -> None:
    near = typo_of(a, [b])
    assert (near == b) == (_osa(a, b) == 1)


def _typo(word: str, data: st.DataObject) -> str:
    """``word`` with one typing slip: a letter dropped, doubled, changed, or two swapped."""
    i = data.draw(st.integers(0, len(word) - 1))
    kind = data.draw(st.sampled_from(["drop", "double", "change", "swap"]))
    if kind == "drop":
        return word[:i] + word[i + 1 :]
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    if kind == "change":
        return word[:i] + data.draw(st.sampled_from("abcdefghijklmnopqrstuvwxyz")) + word[i + 1 :]
    j = min(i + 1, len(word) - 1)
    return word[:i] + word[j] + word[i] + word[j + 1 :] if j > i else word


_FIELDS = {
    "name": st.sampled_from(["guard", "log-calls", "no_rm"]),
    "point": st.sampled_from([p for p, info in POINTS.items() if info.kind == "decision"]),
    "type": st.just("decision"),
    "command": st.sampled_from(["/bin/true", "sh", "node"]),
    "enabled": st.sampled_from(["true", "false"]),
    "timeout": st.sampled_from(["5", "10.5"]),
    "on_error": st.sampled_from(ON_ERROR),
    "format": st.sampled_from(FORMATS),
    "priority": st.sampled_from(["0", "-3", "10"]),
    "description": st.sampled_from(["guards rm", "'quoted: yes'", '"double"']),
}


@st.composite
def hook_files(draw: st.DrawFn) -> tuple[str, list[tuple[str, str, str, int, int]], str]:
    """A valid hook file in a drawn layout, its (key, value, quote, offset in the text, hook) fields in order,
    and the gap after each colon."""
    hooks = []
    for n in range(draw(st.integers(1, 3))):
        keys = ["name", "point", "type", "command", "enabled"]
        keys += draw(st.lists(st.sampled_from(["timeout", "on_error", "format", "priority", "description"]), unique=True))
        fields = []
        for key in draw(st.permutations(keys)):
            value = draw(_FIELDS[key]) + (str(n) if key == "name" else "")
            quoted = key in ("name", "point", "type", "on_error", "format", "command")
            fields.append((key, value, draw(st.sampled_from(["", "'", '"'])) if quoted else ""))
        hooks.append(fields)
    flow = draw(st.booleans())
    comment = draw(st.sampled_from(["", "   # note", " #x"]))
    gap = draw(st.sampled_from([" ", "  "]))
    text = "# hooks of mine\nhooks:\n"
    placed = []
    for h, fields in enumerate(hooks):
        for i, (k, v, q) in enumerate(fields):
            if flow:
                text += "  - {" if i == 0 else ", "
            else:
                text += "  - " if i == 0 else "    "
            placed.append((k, v, q, len(text), h))
            text += f"{k}:{gap}{q}{v}{q}"
            if not flow:
                text += (comment if i == 0 else "") + "\n"
        if flow:
            text += "}" + comment + "\n"
        text += "\n"
    return text, placed, gap


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(hook_files(), st.data())
def test_a_misspelt_key_or_word_is_fixed_back_to_the_very_same_bytes(drawn: tuple[str, list, str], data: st.DataObject) -> None:
    text, fields, gap = drawn
    assert problems(text) == [], text
    key, value, quote, at, hook = data.draw(st.sampled_from(fields))
    words = {"type": HOOK_TYPES, "on_error": ON_ERROR, "format": FORMATS, "combine": COMBINE}
    if key not in words or data.draw(st.booleans()):
        typo = _typo(key, data)
        siblings = {k for k, _, _, _, h in fields if h == hook}
        assume(only_match(typo, KNOWN_KEYS) == key and typo not in siblings)
        old, new = f"{key}:{gap}", f"{typo}:{gap}"
    else:
        typo = _typo(value, data)
        assume(typo not in words[key] and only_match(typo, words[key], 0.5) == value)
        assume(quote or yaml.safe_load(typo) == typo)  # written plain, it must still read as a word
        old, new = f"{key}:{gap}{quote}{value}{quote}", f"{key}:{gap}{quote}{typo}{quote}"
    assert text[at : at + len(old)] == old
    broken = text[:at] + new + text[at + len(old) :]
    assert problems(broken), broken
    out = fixes.fix(broken, "hooks.yaml")
    assert out.text == text, (broken, out.text)
    assert out.left == [] and len(out.fixed) == 1


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("hooks:-{}[],'\"&*!#\n\r\t .abcnpty1:\\\u00e9\u2028"), max_size=120))
def test_any_text_is_fixed_without_an_error_and_only_where_a_fix_was_found(text: str) -> None:
    out = fixes.fix(text, "hooks.yaml")
    if not out.fixed:
        assert out.text == text
    # What is left is what the validator finds in the result: nothing fixed was hidden from the report.
    assert [str(p) for p in out.left] == [str(p) for p in problems(out.text)]
    # Whatever a fix wrote, the validator reads it: no fix made the file unreadable.
    if out.fixed:
        assert not any(p.message.startswith("not valid YAML") for p in out.left) or any(
            p.message.startswith("not valid YAML") for p in problems(text)
        )
