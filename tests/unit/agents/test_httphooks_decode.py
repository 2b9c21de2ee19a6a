"""The hook input decoder holds for hostile input: any bytes give a value, Undecodable or Unfit, never
another error; lone surrogate escapes become U+FFFD and whole pairs stay; any nesting decodes to its
top level without recursion. Property tests against Python's own JSON module."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.agents import decode


def reference(value: Any) -> Any:
    """``value`` as JSON with \\u escapes carries it: surrogate pairs joined, lone surrogates U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, list):
        return [reference(v) for v in value]
    if isinstance(value, dict):
        return {reference(k): reference(v) for k, v in value.items()}
    return value


texts = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF))  # surrogates included
values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | texts, lambda c: st.lists(c) | st.dictionaries(texts, c), max_leaves=30
)


@settings(max_examples=300)
@given(values)
def test_what_json_stringify_writes_decodes_with_lone_surrogates_replaced(value: Any) -> None:
    body = json.dumps({"hook_event_name": "PreToolUse", "tool_input": value}).encode()  # \\u escapes, lone surrogates kept
    assert decode.hook_input(body) == {"hook_event_name": "PreToolUse", "tool_input": reference(value)}


@settings(max_examples=300)
@given(st.binary(max_size=400) | texts.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_any_bytes_decode_or_are_named_never_another_error(body: bytes) -> None:
    try:
        decode.hook_input(body)
    except (decode.Undecodable, decode.Unfit) as exc:
        assert str(exc)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40_000), st.sampled_from(["[", '{"k":']), st.booleans())
def test_any_nesting_decodes_its_top_level(levels: int, opener: str, pretty: bool) -> None:
    closer = "]" if opener == "[" else "}"
    inner = (opener + ("\n " if pretty else "")) * levels + "0" + closer * levels
    body = f'{{"hook_event_name": "PreToolUse", "session_id": "s1", "deep": {inner}, "cwd": "/w"}}'.encode()
    try:
        value = decode.hook_input(body)
    except decode.Unfit as exc:
        assert levels + 1 > decode.MAX_NESTING
        assert exc.value["hook_event_name"] == "PreToolUse" and exc.value["session_id"] == "s1" and exc.value["cwd"] == "/w"
        assert "nested more than 512 levels" in str(exc)
    else:
        assert levels + 1 <= decode.MAX_NESTING
        assert value["cwd"] == "/w" and decode.nesting(value, 10**6) == levels + 1


def test_an_escaped_backslash_before_u_is_text_not_a_surrogate() -> None:
    assert decode.hook_input(b'{"a": "\\\\ud800", "b": "\\\\\\ud800"}') == {"a": "\\ud800", "b": "\\\ufffd"}


def test_a_too_deep_body_that_is_also_broken_is_named_broken() -> None:
    for body in (b'{"a": ' + b"[" * 2000, b"[" * 2000 + b"]" * 1999, b'{"a": ' + b"[" * 2000 + b"]" * 2000 + b"} trailing"):
        try:
            decode.hook_input(body)
        except decode.Undecodable as exc:
            assert "not valid JSON" in str(exc)
        else:
            raise AssertionError(body[:20])
