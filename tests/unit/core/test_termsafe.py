"""Control characters from foreign text are shown escaped, and JSON output stays valid JSON."""

from __future__ import annotations

import io
import json

from hookd_client.messages import Event, HookRef, HookRun
from hypothesis import given
from hypothesis import strategies as st

from hookd.cli import tailfmt
from hookd.core import termsafe


def _controls(text: str) -> list[str]:
    return [c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0 or c in "\u202e\u2066"]


@given(st.text())
def test_clean_leaves_no_control_character(text):
    assert not _controls(termsafe.clean(text))
    assert "\n" not in termsafe.one_line(text) and not _controls(termsafe.one_line(text))


@given(st.text())
def test_json_text_escapes_and_round_trips(text):
    out = termsafe.json_text(json.dumps({"k": text}, ensure_ascii=False))
    assert not _controls(out)
    assert json.loads(out) == {"k": text}


def test_clean_shows_what_was_there():
    assert termsafe.clean("a\x1b]52;c;eA==\x07b\x9b\x7f\u202e") == "a\\x1b]52;c;eA==\\x07b\\x9b\\x7f\\u202e"
    assert termsafe.clean("line\n\ttab") == "line\n\ttab"


def test_safe_stream_escapes_everything_written():
    buf = io.StringIO()
    stream = termsafe.SafeStream(buf)
    print("x\x1b[2Jy", file=stream)
    assert buf.getvalue() == "x\\x1b[2Jy\n"
    assert termsafe.unfiltered(stream) is buf


@given(st.text(), st.text(), st.text(), st.dictionaries(st.text(), st.text()))
def test_tail_line_carries_only_hookd_colours(point, session, reason, payload):
    import re

    ev = Event(
        seq=1,
        time=0.0,
        kind="decide",
        point=point,
        session=session,
        payload={**payload, "args": {"command": reason}},
        decision="deny",
        reason=reason,
        decided_by=HookRef(reason, "global", reason),
    )
    for colour in (False, True):
        text = tailfmt.line(ev, colour)
        assert not _controls(re.sub(r"\x1b\[[0-9;]*m", "", text))
        assert "\n" not in text


def test_tail_names_guards_that_did_not_run() -> None:
    ev = Event(
        seq=2,
        time=0.0,
        kind="decide",
        point="tool.approval.pre",
        payload={"toolName": "Bash"},
        hooks=[HookRun(HookRef("no-\x1brm", "project", "/p/.hookd/hooks.yaml"), skipped="untrusted")],
    )
    assert "not run: no-\\x1brm (untrusted)" in tailfmt.line(ev)
