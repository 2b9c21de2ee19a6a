"""Hostile managed values and settings: refused with a reason, never a crash."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.team import settings as team_settings
from hookd.team.managed import check

KEYS = st.one_of(st.text(max_size=40), st.sampled_from(["before.x", "after.y", "before.", "sideways", ".before", "before.a.b"]))
VALUES = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=400).map(str.encode),
    st.sampled_from([b"hooks: []\n", b"hooks:\n  - name: a\n", b"- 1\n", b"hooks: {a: 1}\n", b"\xff\xfe", b"hooks: [*x]\n"]),
)


@settings(max_examples=300, deadline=None)
@given(KEYS, VALUES)
def test_a_managed_value_is_taken_or_refused_with_reasons(key: str, value: bytes) -> None:
    specs, problems = check(key, value)
    assert bool(specs) + bool(problems) <= 1
    assert all(isinstance(p, str) and p for p in problems)
    if not key.startswith(("before.", "after.")):
        assert problems


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_settings_text_is_loaded_or_refused_with_team_config_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "team.toml"
        path.write_text(text)
        try:
            loaded = team_settings.load(str(path))
        except team_settings.TeamConfigError as exc:
            assert str(exc)
        else:
            assert loaded is not None and loaded.servers
