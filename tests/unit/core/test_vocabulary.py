"""hookd's one tool vocabulary: every agent's tool call reaches hooks under seed 000's names, and the
agent gets its own names back, whatever a guard rewrote."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hookd.agents import dialect
from hookd.agents.claude_code import hooks as ch
from hookd.agents.claude_code import protocol as cc
from hookd.agents.codex import protocol as codex
from hookd.agents.droid import protocol as droid
from hookd.agents.gemini import protocol as gemini
from hookd.agents.qwen import protocol as qwen
from hookd.core import vocabulary
from hookd.core.chain import ChainState
from hookd.core.matcher import Matcher

# The shell tool of each bridged agent, as its hook input names it, and its own argument shape.
SHELL = {
    "claude-code": ("Bash", {"command": "rm -rf /", "description": "clean"}),
    "codex": ("Bash", {"command": "rm -rf /"}),
    "gemini": ("run_shell_command", {"command": "rm -rf /", "dir_path": "/tmp"}),
    "qwen": ("run_shell_command", {"command": "rm -rf /", "directory": "/tmp"}),
    "opencode": ("bash", {"command": "rm -rf /", "workdir": "/tmp"}),
    "droid": ("Execute", {"summary": "Clean up", "command": "rm -rf /"}),
    "copilot": ("bash", {"command": "rm -rf /", "description": "clean"}),
    "cline": ("run_commands", {"commands": ["rm -rf /"]}),  # its bridge adds `command` (tests/unit/agents/test_cline_protocol.py)
    "pi": ("bash", {"command": "rm -rf /", "description": "clean"}),
}
DIALECTS = {"claude-code": cc.DIALECT, "codex": codex.DIALECT, "gemini": gemini.DIALECT, "qwen": qwen.DIALECT}
DIALECTS["droid"] = droid.DIALECT
EVENTS = {"claude-code": "PreToolUse", "codex": "PreToolUse", "gemini": "BeforeTool", "qwen": "PreToolUse"}
EVENTS["droid"] = "PreToolUse"
README_GUARD = Matcher({"toolName": "^execute_command$"})


@pytest.mark.parametrize("agent", sorted(DIALECTS))
def test_every_agent_s_shell_tool_is_execute_command_with_args_command(agent: str) -> None:
    name, args = SHELL[agent]
    data = {"hook_event_name": EVENTS[agent], "session_id": "s", "cwd": "/p", "tool_name": name, "tool_input": args}
    call = dialect.route(DIALECTS[agent], data, {})
    assert call.point == "tool.approval.pre" and call.decide
    p = call.payload
    assert (p["toolName"], p["args"]["command"], p["agentToolName"], p["agent"]) == ("execute_command", "rm -rf /", name, agent)
    assert README_GUARD(p)  # the README's guard, copied as written, sees this agent's shell


def test_every_agent_has_a_shell_tool_in_the_table() -> None:
    for agent, (name, _) in SHELL.items():
        found = vocabulary.tool(agent, name)
        assert found is not None and found.name == "execute_command", agent
    assert set(vocabulary.AGENTS) == set(SHELL)


def test_every_table_entry_names_a_canonical_tool_and_renames_onto_its_args() -> None:
    for agent, tools in vocabulary.TOOLS.items():
        for name, t in tools.items():
            assert t.name in vocabulary.CANONICAL, (agent, name)
            for theirs, ours in t.renames:
                assert theirs != ours and ours in ("path", "cwd", "command", "content", "pattern", "query", "prompt", "url"), (agent, name)


def test_a_file_tool_carries_args_path_beside_the_agent_s_own_name() -> None:
    call = dialect.route(
        cc.DIALECT, {"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": "/a", "content": "x"}}, {}
    )
    assert call.payload["toolName"] == "write_file"
    assert call.payload["args"] == {"file_path": "/a", "content": "x", "path": "/a"}
    # A hook written for Claude Code gets Claude Code's own input back, exactly.
    data = ch.hook_input(call.payload, call.point, "", "/p", "/")
    assert data["tool_name"] == "Write" and data["tool_input"] == {"file_path": "/a", "content": "x"}
    assert "agent" not in data and "agent_tool_name" not in data


def test_an_unknown_tool_keeps_its_name_and_args() -> None:
    call = dialect.route(cc.DIALECT, {"hook_event_name": "PreToolUse", "tool_name": "mcp__x__y", "tool_input": {"file_path": "/a"}}, {})
    p = call.payload
    assert (p["toolName"], p["agentToolName"], p["args"]) == ("mcp__x__y", "mcp__x__y", {"file_path": "/a"})


def test_an_agent_field_named_like_hookd_s_keys_stays_in_hook_input() -> None:
    data = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "agent": "theirs"}
    call = dialect.route(cc.DIALECT, data, {})
    assert call.payload["agent"] == "claude-code" and call.payload["hookInput"]["agent"] == "theirs"
    assert ch.hook_input(call.payload, call.point, "", "/p", "/")["agent"] == "theirs"


_values = st.one_of(st.text(max_size=8), st.integers(), st.none(), st.lists(st.integers(), max_size=3))
_tools = st.sampled_from([(agent, name) for agent, tools in vocabulary.TOOLS.items() for name in tools])


@st.composite
def _args(draw: Any) -> tuple[str, str, dict[str, Any]]:
    agent, name = draw(_tools)
    own = [theirs for theirs, _ in vocabulary.TOOLS[agent][name].renames]
    keys = st.sampled_from([*own, "command", "content", "x", "path", "cwd"]) if own else st.sampled_from(["command", "x", "y"])
    return agent, name, draw(st.dictionaries(keys, _values, max_size=5))


def _repeats(agent: str, name: str, args: dict[str, Any]) -> bool:
    """The agent itself sent an argument under hookd's name with the same value as the one it renames:
    that cannot be told from the alias hookd adds, and is read as the alias (one argument, not two)."""
    return any(t in args and o in args and args[t] == args[o] for t, o in vocabulary.TOOLS[agent][name].renames)


@given(_args())
def test_the_agent_s_arguments_come_back_unchanged(case: tuple[str, str, dict[str, Any]]) -> None:
    agent, name, args = case
    assume(not _repeats(agent, name, args))
    canonical = vocabulary.canonical_args(agent, name, args)
    assert vocabulary.agent_args(agent, name, canonical, canonical) == args


@given(_args(), _values)
def test_a_rewrite_of_either_name_reaches_the_agent_and_the_next_guard(case: tuple[str, str, dict[str, Any]], new: Any) -> None:
    agent, name, args = case
    sent = vocabulary.canonical_args(agent, name, args)
    payload = {"agent": agent, "agentToolName": name, "toolName": vocabulary.TOOLS[agent][name].name, "args": sent}
    for theirs, ours in vocabulary.TOOLS[agent][name].renames:
        if theirs not in args or ours in args:
            continue
        for key in (theirs, ours):
            rewrite = {**sent, key: new}
            if rewrite == sent:
                continue  # nothing rewritten: where the agent's own names disagree, each keeps its value
            seen = vocabulary.rewritten_args(payload, rewrite)
            # The next guard reads the new value under both names; the agent gets it under its own.
            assert seen[theirs] == new and seen[ours] == new, (key, seen)
            assert vocabulary.agent_args(agent, name, seen, sent)[theirs] == new
            assert ours not in vocabulary.agent_args(agent, name, seen, sent)


def test_a_rewrite_reaches_every_name_the_agent_gave_one_argument() -> None:
    """Qwen Code's read_file calls its path absolute_path or file_path: a call carrying both, whatever they
    hold, has a guard's new path under both, and the next guard reads it under all three names."""
    sent = vocabulary.canonical_args("qwen", "read_file", {"absolute_path": "/a", "file_path": "/b"})
    payload = {"agent": "qwen", "agentToolName": "read_file", "toolName": "read_file", "args": sent}
    for key in ("path", "absolute_path", "file_path"):
        seen = vocabulary.rewritten_args(payload, {**sent, key: "/safe"})
        assert seen == {"absolute_path": "/safe", "file_path": "/safe", "path": "/safe"}, key
        assert vocabulary.agent_args("qwen", "read_file", seen, sent) == {"absolute_path": "/safe", "file_path": "/safe"}


def test_the_chain_keeps_both_names_in_step_after_a_rewrite() -> None:
    from hookd_client.messages import Decision

    class Hook:
        name = "h"
        ref = None

    payload = dialect.route(
        cc.DIALECT, {"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {"file_path": "/a"}}, {}
    ).payload
    state = ChainState(payload)
    state.apply(Hook(), Decision(modified_input={"file_path": "/etc/shadow"}))  # a hook written for Claude Code
    assert state.payload["args"] == {"file_path": "/etc/shadow", "path": "/etc/shadow"}
    state.apply(Hook(), Decision(modified_input={**state.payload["args"], "path": "/b"}))  # a guard written for hookd
    assert state.payload["args"] == {"file_path": "/b", "path": "/b"}
    verdict = dialect.for_agent(
        dialect.Call("PreToolUse", "tool.approval.pre", True, payload, None, None), dialect.Verdict(modified_input=state.modified_input)
    )
    assert verdict is not None and verdict.modified_input == {"file_path": "/b"}


def test_tool_name_in_a_filter_matches_the_agent_s_own_name_too() -> None:
    payload = {"toolName": "execute_command", "agentToolName": "Bash", "args": {"command": "ls"}}
    assert Matcher({"toolName": "^execute_command$"})(payload)
    assert Matcher({"toolName": "^(?:Bash)$"})(payload)  # a guard imported from Claude Code before the vocabulary
    assert not Matcher({"toolName": "^Read$"})(payload)
    assert not Matcher({"toolName": "^Bash$", "args.command": "rm"})(payload)


def test_the_table_as_json_is_what_the_python_side_uses() -> None:
    import json

    table = json.loads(json.dumps(vocabulary.table()))
    assert table["agents"]["opencode"]["read"] == ["read_file", {"filePath": "path"}, None]
    assert table["agents"]["cline"]["run_commands"] == ["execute_command", {}, ["commands", "command"]]
    assert table["canonical"]["execute_command"]["args"] == ["command"]


def test_docs_show_the_table_the_bridges_use() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[3] / "docs" / "bridges.md").read_text()
    assert vocabulary.markdown_table() in doc, "docs/bridges.md's tool table differs from hookd/core/vocabulary.py: paste markdown_table()"
