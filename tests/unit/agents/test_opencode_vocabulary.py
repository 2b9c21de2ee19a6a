"""The opencode plugin's tool vocabulary (JavaScript, hookd/agents/opencode/vocabulary.js) gives the answers of
hookd/core/vocabulary.py on the same inputs: a tool call put into hookd's names, and a guard's rewrite folded back
into the agent's. The JavaScript runs under Node over the table install writes into the plugin."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hookd.agents.opencode import install as plugin
from hookd.core import vocabulary

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# Reads one case per line, answers one line each: the plugin's functions over the plugin's table.
DRIVER = """
const readline = require("node:readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const c = JSON.parse(line);
  const payload = canonical(c.payload, c.agent);
  const back = agentArgs(c.agent, c.tool, c.modified, c.sent);
  process.stdout.write(JSON.stringify({ payload, back }) + "\\n");
});
"""


class Node:
    def __init__(self) -> None:
        table = json.dumps(vocabulary.table(), sort_keys=True)
        script = f"const VOCABULARY = {table};\n{plugin.VOCABULARY_JS.read_text(encoding='utf-8')}\n{DRIVER}"
        self.proc = subprocess.Popen(["node", "-e", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, case: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "node exited"
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(30)


@pytest.fixture(scope="module")
def node() -> Iterator[Node]:
    n = Node()
    yield n
    n.close()


def python(case: dict[str, Any]) -> dict[str, Any]:
    payload = vocabulary.canonical(json.loads(json.dumps(case["payload"])), case["agent"])
    back = vocabulary.agent_args(case["agent"], case["tool"], case["modified"], case["sent"])
    return {"payload": payload, "back": back}


# Argument names the tables rename (on either side) and a few others; values without booleans, since Python
# holds True == 1 and JSON does not.
NAMES = sorted({n for tools in vocabulary.TOOLS.values() for t in tools.values() for pair in t.renames for n in pair})
keys = st.sampled_from([*NAMES, "command", "content", "x", "__proto__", "constructor", "0"]) | st.text(max_size=4)
scalars = st.none() | st.integers(-5, 5) | st.sampled_from(["/a", "/b", "", "ls"]) | st.text(max_size=3)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2), max_leaves=4
)
args = st.dictionaries(keys, values, max_size=5)
agents = st.sampled_from([*vocabulary.AGENTS, "someone-else"])


@st.composite
def cases(draw: st.DrawFn) -> dict[str, Any]:
    agent = draw(agents)
    tools = vocabulary.TOOLS.get(agent, {})
    renaming = sorted(name for name, t in tools.items() if t.renames)
    # Mostly the tools whose arguments are renamed, where the two sides can differ; also the others and unknown ones.
    choices = [st.sampled_from(renaming)] * 4 if renaming else []
    tool = draw(st.one_of(*choices, *([st.sampled_from(sorted(tools))] if tools else []), st.text(max_size=6)))
    known = vocabulary.tool(agent, tool)
    pairs = known.renames if known is not None else ()
    sent_args: Any = draw(args) if draw(st.integers(0, 9)) else draw(scalars)
    if pairs and isinstance(sent_args, dict):
        for theirs, ours in pairs:
            # Each name of a renamed argument, alone or both, alike or not: where an alias and the agent's own meet.
            which = draw(st.integers(0, 3))
            if which & 1:
                sent_args[theirs] = draw(scalars)
            if which & 2:
                sent_args[ours] = draw(st.just(sent_args.get(theirs)) | scalars)
    payload: dict[str, Any] = {"toolName": tool if draw(st.integers(0, 9)) else draw(scalars), "args": sent_args, "sessionID": "s"}
    if not draw(st.integers(0, 9)):
        del payload["args"]
    sent = vocabulary.canonical_args(agent, tool, sent_args)
    # A guard's rewrite: what it was sent with either name of a renamed argument changed, or anything at all.
    modified: Any = dict(sent) if isinstance(sent, dict) else draw(args)
    for theirs, ours in pairs:
        which = draw(st.integers(0, 4))
        if which & 1:
            modified[theirs] = draw(scalars)
        if which & 2:
            modified[ours] = draw(scalars)
        if which == 4:
            modified.pop(draw(st.sampled_from([theirs, ours])), None)
    if not draw(st.integers(0, 9)):
        modified = draw(args | scalars)
    return {"agent": agent, "tool": tool, "payload": payload, "modified": modified, "sent": sent if draw(st.integers(0, 9)) else draw(args)}


@settings(max_examples=400, deadline=None)
@given(cases())
# An agent whose list argument hookd also reads as one script (Cline's commands), and one whose two names stand
# for one of hookd's (Qwen Code's read_file): the plugins' copy of the rules must fold them back as Python does.
@example(
    {"agent": "cline", "tool": "run_commands", "payload": {"toolName": None, "sessionID": "s"}, "modified": {"command": None}, "sent": {}}
)
@example(
    {
        "agent": "qwen",
        "tool": "read_file",
        "payload": {"toolName": None, "sessionID": "s"},
        "modified": {"absolute_path": "/a", "file_path": "/b", "path": "/safe"},
        "sent": {"absolute_path": "/a", "file_path": "/b", "path": "/a"},
    }
)
def test_the_plugin_s_vocabulary_answers_as_hookd_s(node: Node, case: dict[str, Any]) -> None:
    assert node.ask(case) == python(case)


def test_opencode_s_shell_and_a_rewrite_of_its_working_directory(node: Node) -> None:
    sent = {"command": "rm -rf /", "workdir": "/tmp", "cwd": "/tmp"}
    case = {
        "agent": "opencode",
        "tool": "bash",
        "payload": {"toolName": "bash", "args": {"command": "rm -rf /", "workdir": "/tmp"}},
        "modified": {**sent, "cwd": "/srv"},
        "sent": sent,
    }
    answer = node.ask(case)
    assert answer == python(case)
    assert answer["payload"] == {"toolName": "execute_command", "agentToolName": "bash", "agent": "opencode", "args": sent}
    assert answer["back"] == {"command": "rm -rf /", "workdir": "/srv"}
