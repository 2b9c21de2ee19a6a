"""What hookd's pi extension makes of each answer, without a model: the installed extension is loaded by pi's own
loader and its handlers are called as pi calls them (extension_driver.mjs), against a real daemon whose command
hooks answer what each case asks for. The real pi runs in test_pi_e2e.py; these are the answers a scripted model
cannot reach (a prompt refused or rewritten, a tool result replaced, a compaction cancelled, an input hookd cannot
be handed)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Env, write_script

from .conftest import install_pi

HERE = Path(__file__).resolve().parent
PI_INDEX = HERE / "node_modules" / "@mariozechner" / "pi-coding-agent" / "dist" / "index.js"

pytestmark = [pytest.mark.timeout(600)]

# One hook per point, answering what the case asks for: `want` in the payload or its args, or a text field
# starting with WANT: followed by the answer's JSON (a prompt, a compaction's instructions).
ANSWER = """
import json, sys
p = json.load(sys.stdin)
want = None
for place in (p, p.get("args")):
    if isinstance(place, dict) and "want" in place:
        want = place["want"]
for value in p.values():
    if isinstance(value, str) and value.startswith("WANT:"):
        want = json.loads(value[5:])
print(json.dumps(want))
"""
POINTS = (
    "tool.approval.pre",
    "tool.execute.after",
    "chat.message",
    "experimental.session.compacting",
    "experimental.chat.system.transform",
)


@pytest.fixture
def extension(env: Env, daemon_factory, tmp_path: Path, pi_install: Path) -> Path:  # type: ignore[no-untyped-def]
    if not PI_INDEX.exists():
        pytest.skip(f"SKIPPED LOUDLY: {PI_INDEX} is missing: run `make e2e-deps` (npm ci in tests/e2e/pi)")
    script = write_script(tmp_path / "answer.py", ANSWER)
    entries = "\n".join(
        f"  - {{name: answer-{i}, point: {p}, type: decision, command: {script}, enabled: true}}" for i, p in enumerate(POINTS)
    )
    env.write_global_hooks(f"hooks:\n{entries}\n")
    daemon_factory("--max-frame", "65536")
    env.env["PATH"] = f"{HERE / 'node_modules' / '.bin'}{os.pathsep}{env.env['PATH']}"
    return install_pi(env, pi_install)  # what `hookd bridge install pi` writes (conftest.py)


def drive(env: Env, extension: Path, cases: list[dict]) -> list[dict]:
    lines = "".join(json.dumps({"session": "pi-session", "cwd": str(env.root), **c}) + "\n" for c in cases)
    done = subprocess.run(
        ["node", str(HERE / "extension_driver.mjs"), PI_INDEX.as_uri(), str(extension)],
        input=lines,
        env=env.env,
        cwd=env.root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.split("\n") if line]


def tool_call(args: dict, **extra: object) -> dict:
    return {"event": {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": args}, **extra}


def test_a_tool_call_is_blocked_rewritten_or_let_through(env: Env, extension: Path) -> None:
    results = drive(
        env,
        extension,
        [
            tool_call({"command": "ls", "want": {"decision": "deny", "reason": "no"}}),
            tool_call({"command": "ls", "old": 1, "want": {"decision": "allow", "modifiedInput": {"command": "pwd"}}}),
            tool_call({"command": "ls", "want": {"decision": "ask", "reason": "sure?"}}),
            tool_call({"command": "ls", "want": {"decision": "ask", "reason": "sure?"}}, hasUI=True, confirm=True),
            tool_call({"command": "ls", "want": {"decision": "ask"}}, hasUI=True, confirm=False),
            tool_call({"command": "ls"}),
            {"event": {"type": "tool_call", "toolName": "bash", "toolCallId": "c2", "input": {"command": "ls"}, "cycle": True}},
            tool_call({"command": "x" * 70000}),
        ],
    )
    assert results[0]["result"] == {"block": True, "reason": "Blocked by hookd (answer-0): no"}
    assert results[1]["result"] is None and results[1]["event"]["input"] == {"command": "pwd"}
    assert results[2]["result"]["block"] and "asks for confirmation, which pi cannot show here: sure?" in results[2]["result"]["reason"]
    assert results[3]["result"] is None  # the user confirmed in pi's dialog
    assert "the user declined" in results[4]["result"]["reason"]
    assert results[5] == {"result": None, "event": tool_call({"command": "ls"})["event"], "thrown": None}
    assert results[6]["result"]["block"] and "cannot be handed to hookd" in results[6]["result"]["reason"], results[6]
    assert "answer-0" in results[6]["result"]["reason"]  # the guard that could not see it is named
    assert "over hookd's frame limit of 65536 bytes" in results[7]["result"]["reason"] and results[7]["result"]["block"]
    assert all(r["thrown"] is None for r in results)


def test_a_tool_result_is_replaced_extended_or_refused(env: Env, extension: Path) -> None:
    def result(want: dict) -> dict:
        content = [{"type": "text", "text": "raw"}]
        return {
            "event": {
                "type": "tool_result",
                "toolName": "bash",
                "toolCallId": "c1",
                "input": {"command": "ls", "want": want},
                "content": content,
            }
        }

    results = drive(
        env,
        extension,
        [
            result({"modifiedOutput": "clean", "injection": "note"}),
            result({"decision": "deny", "reason": "secret in output"}),
            result({"modifiedOutput": {"content": "as text", "isError": True}}),
            result({}),
        ],
    )
    assert results[0]["result"] == {"content": [{"type": "text", "text": "clean"}, {"type": "text", "text": "note"}]}
    assert results[1]["result"] == {"content": [{"type": "text", "text": "Blocked by hookd (answer-1): secret in output"}], "isError": True}
    assert results[2]["result"] == {"content": [{"type": "text", "text": "as text"}], "isError": True}
    assert results[3]["result"] is None
    [after] = [
        json.loads(line)
        for line in env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.execute.after").stdout.splitlines()
    ][:1]
    assert after["payload"]["toolName"] == "execute_command" and after["payload"]["output"] == "raw" and after["session"] == "pi-session"


def test_prompts_and_compaction(env: Env, extension: Path) -> None:
    def prompt(text: str) -> dict:
        return {"event": {"type": "input", "text": text, "source": "interactive"}}

    want = 'WANT:{"decision": "deny", "reason": "not today"}'
    results = drive(
        env,
        extension,
        [
            prompt(want),
            prompt('WANT:{"modifiedInput": {"prompt": "be brief"}, "injection": "the house rules"}'),
            {"event": {"type": "before_agent_start", "prompt": "be brief", "systemPrompt": "You are pi."}},
            {"event": {"type": "before_agent_start", "prompt": "x", "systemPrompt": 'WANT:{"injection": "Mind the guards."}'}},
            {
                "event": {
                    "type": "session_before_compact",
                    "customInstructions": want,
                    "preparation": {"tokensBefore": 9},
                    "branchEntries": [],
                }
            },
            {"event": {"type": "session_before_compact", "customInstructions": "keep it", "branchEntries": []}},
        ],
    )
    assert results[0]["result"] == {"action": "handled"}
    assert results[1]["result"] == {"action": "transform", "text": "be brief"}
    # The prompt's injection goes with the turn it starts, once.
    assert results[2]["result"] == {"message": {"customType": "hookd", "content": "the house rules", "display": False}}
    assert results[3]["result"] == {"systemPrompt": 'WANT:{"injection": "Mind the guards."}\n\nMind the guards.'}
    assert results[4]["result"] == {"cancel": True}
    assert results[5]["result"] is None
    compacting = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "experimental.session.compacting").stdout
    assert json.loads(compacting.splitlines()[0])["payload"]["tokensBefore"] == 9
