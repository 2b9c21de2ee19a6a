"""Install then uninstall gives back the exact bytes, whatever the settings file holds, and leaves nothing else."""

from __future__ import annotations

import json
import os
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.agents import settings_file, settings_install

scalars = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8
)
handler = st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.text(min_size=1, max_size=12)}, optional={"timeout": st.integers(1, 600)}
)
group = st.fixed_dictionaries({"hooks": st.lists(handler, max_size=2)}, optional={"matcher": st.text(max_size=6)})
hooks = st.dictionaries(
    st.sampled_from(["PreToolUse", "Stop", "SessionEnd", "Notification", "CwdChanged"]), st.lists(group, max_size=2), max_size=3
)
documents = st.dictionaries(st.text(max_size=6).filter(lambda k: k != "hooks"), values, max_size=4).flatmap(
    lambda base: st.one_of(st.just(base), hooks.map(lambda h: {**base, "hooks": h}))
)
styles = st.sampled_from([{"indent": 2}, {"indent": 4}, {"indent": "\t"}, {"indent": None}, {"indent": 2, "sort_keys": True}])


@settings(max_examples=60, deadline=None)
@given(documents, styles, st.booleans())
def test_round_trip_is_byte_identical(doc: dict, style: dict, newline: bool) -> None:
    text = json.dumps(doc, ensure_ascii=False, **style) + ("\n" if newline else "")
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as state:
        path = os.path.join(tmp, "settings.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        layout = settings_file.command_layout("/usr/bin/hookd bridge claude-code --timeout 588", 600)
        settings_install.install(path, layout, state=state)
        with open(path, encoding="utf-8") as f:
            installed = json.load(f)
        assert {k: v for k, v in installed.items() if k != "hooks"} == {k: v for k, v in doc.items() if k != "hooks"}
        for event, groups in doc.get("hooks", {}).items():
            assert installed["hooks"][event][: len(groups)] == groups  # the user's hooks keep their place
        settings_install.uninstall(path, state=state)
        with open(path, encoding="utf-8") as f:
            assert f.read() == text
        assert sorted(os.listdir(tmp)) == ["settings.json"]
        assert os.listdir(state) == []  # the record of the file before install went with it
