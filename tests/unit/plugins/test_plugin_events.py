"""The (input, output) split and the output -> decision rule, as pure functions; the host's chain in-process."""

from __future__ import annotations

import asyncio
import copy
import logging
import textwrap
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.core import points
from hookd.plugins import events
from hookd.plugins.host import Host, PluginContext

SEED_004 = [p.name for p in points.POINTS.values() if "004" in p.seeds]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
payloads = st.dictionaries(st.sampled_from(["args", "output", "status", "text", "env", "headers", "x"]), json_values, max_size=5)


def test_every_seed_004_event_has_a_shape_and_blockable_matches_the_catalog():
    assert len(SEED_004) == 21
    assert sorted(events.SHAPES) == sorted(SEED_004)
    for name in SEED_004:
        assert events.SHAPES[name].blockable == (points.POINTS[name].kind == "decision"), name


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow], max_examples=200)
@given(st.sampled_from(SEED_004), payloads)
def test_split_copies_and_an_unchanged_output_decides_nothing(point, payload):
    original = copy.deepcopy(payload)
    inp, out = events.split(point, payload)
    assert "output" not in inp
    assert isinstance(out, dict)
    before = copy.deepcopy(out)
    out["mutated"] = [1]
    inp["mutated"] = 1
    for value in out.values():
        if isinstance(value, dict):
            value["deep"] = 1
    assert payload == original
    assert events.conclude(point, before, before) is None


def test_output_object_given_or_built_from_defaults():
    assert events.split("chat.params", {"output": {"temperature": 0.5}})[1] == {"temperature": 0.5}
    assert events.split("chat.params", {"temperature": 0.5})[1] == {"temperature": 0.5, "topP": None, "topK": None, "options": {}}
    # tool.execute.after's "output" field is the tool's text unless it is an object.
    assert events.split("tool.execute.after", {"output": "text"})[1] == {"title": "", "output": "text", "metadata": {}}
    assert events.split("tool.execute.before", {"args": {"a": 1}, "output": {"x": 1}})[1] == {"args": {"a": 1}}


def test_conclude_maps_args_status_and_output():
    assert events.conclude("tool.execute.before", {"args": {"a": 1}}, {"args": {"a": 2}}) == {"modifiedInput": {"a": 2}}
    allow = events.conclude("permission.ask", {"status": "ask"}, {"status": "allow"})
    assert allow is not None and allow["decision"] == "allow"
    weird = events.conclude("permission.ask", {"status": "ask"}, {"status": "maybe"})
    assert weird == {"modifiedOutput": {"status": "maybe"}}
    assert events.conclude("shell.env", {"env": {}}, {"env": {"A": "1"}}) == {"modifiedOutput": {"env": {"A": "1"}}}
    assert events.conclude("chat.response", {}, {"x": 1}) is None  # observed only


def _host(tmp_path: Path, files: dict[str, str]) -> Host:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    ctx = PluginContext(str(tmp_path), "global", None, None, logging.getLogger("test"))
    host = Host(str(tmp_path), ctx)
    asyncio.run(host.load())
    return host


def test_host_finds_plugins_and_skips_helpers_and_imports(tmp_path):
    host = _host(
        tmp_path,
        {
            "a.py": """
                from os.path import join            # imported: never called
                def helper(x):                      # returns no dict: not a plugin
                    return 1
                def _private(ctx):
                    raise AssertionError("never called")
                async def Plugin(ctx):
                    return {"shell.env": lambda i, o: o["env"].update(A=join("x", "y"))}
            """,
            "b.py": """
                __all__ = ["Listed"]
                def Listed(ctx):
                    return {"shell.env": lambda i, o: o["env"].update(B="1"), "tool.definition": 3}
                def NotListed(ctx):
                    raise AssertionError("not exported")
            """,
        },
    )
    assert {e: [r.label for r in regs] for e, regs in host.handlers.items()} == {"shell.env": ["a.py:Plugin", "b.py:Listed"]}
    assert [e["handler"] for e in host.load_errors] == ["b.py:Listed"]
    answer: dict[str, Any] = asyncio.run(host.run_chain("shell.env", "shell.env", {}))
    assert answer == {"decision": {"modifiedOutput": {"env": {"A": "x/y", "B": "1"}}}, "errors": []}
