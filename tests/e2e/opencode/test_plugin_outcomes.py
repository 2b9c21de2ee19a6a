"""The opencode plugin's handling of outcomes, without opencode: the installed plugin is called as opencode
calls it (input, output) by a Node driver, against a real daemon with real command hooks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Env, write_script

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.timeout(600)

# One hook per point, answering what the payload's `want` asks for.
ANSWER = """
import json, sys
p = json.load(sys.stdin)
want = None
for place in (p, p.get("args"), p.get("output")):
    if isinstance(place, dict) and "want" in place:
        want = place["want"]
print(json.dumps(want))
"""

HOOKS = """\
hooks:
{entries}
"""


def hooks_yaml(script: Path) -> str:
    points = ["tool.execute.before", "tool.execute.after", "permission.ask", "chat.params", "experimental.chat.system.transform"]
    entries = "\n".join(
        f"  - {{name: answer-{i}, point: {p}, type: decision, command: {script}, enabled: true}}" for i, p in enumerate(points)
    )
    return HOOKS.format(entries=entries)


def drive(env: Env, plugin: Path, cases: list[dict]) -> list[dict]:
    done = subprocess.run(
        ["node", str(HERE / "plugin_driver.mjs"), str(plugin)],
        input="".join(json.dumps(c) + "\n" for c in cases),
        env=env.env,
        cwd=env.root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def install(env: Env, *extra: str) -> Path:
    done = env.hookd("bridge", "install", "opencode", *extra)
    assert done.returncode == 0, done.stderr
    return env.config / "opencode" / "plugin" / "hookd.js"


def test_outcomes_are_applied_to_output_in_place(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env.write_global_hooks(hooks_yaml(write_script(tmp_path / "answer.py", ANSWER)))
    daemon_factory()
    plugin = install(env)
    before = {"tool": "bash", "sessionID": "ses_1", "callID": "c1"}
    cases = [
        {
            "event": "tool.execute.before",
            "input": before,
            "output": {"args": {"command": "ls", "want": {"decision": "deny", "reason": "no"}}},
        },
        {
            "event": "tool.execute.before",
            "input": before,
            "output": {"args": {"command": "ls", "old": 1, "want": {"decision": "allow", "modifiedInput": {"command": "pwd"}}}},
        },
        {"event": "tool.execute.before", "input": before, "output": {"args": {"command": "ls", "want": {"decision": "ask"}}}},
        {"event": "tool.execute.before", "input": before, "output": {"args": {"command": "ls"}}},
        {
            "event": "tool.execute.after",
            "input": {**before, "want": {"modifiedOutput": "clean", "injection": "note"}},
            "output": {"title": "t", "output": "raw", "metadata": {}},
        },
        {"event": "permission.ask", "input": {"type": "bash", "want": {"decision": "deny"}}, "output": {"status": "ask"}},
        {
            "event": "chat.params",
            "input": {"sessionID": "ses_1", "want": {"modifiedOutput": {"temperature": 0.1}}},
            "output": {"temperature": 1, "topP": 1},
        },
        {"event": "experimental.chat.system.transform", "input": {"want": {"injection": "be careful"}}, "output": {"system": ["base"]}},
    ]
    results = drive(env, plugin, cases)
    assert results[0]["thrown"] == "Blocked by hookd (answer-0): no"
    assert results[1] == {"output": {"args": {"command": "pwd"}}, "thrown": None}
    assert "asks for confirmation" in results[2]["thrown"]
    assert results[3] == {"output": {"args": {"command": "ls"}}, "thrown": None}
    assert results[4]["output"]["output"] == "clean\n\nnote" and results[4]["thrown"] is None
    assert results[5] == {"output": {"status": "deny"}, "thrown": None}
    assert results[6]["output"] == {"temperature": 0.1, "topP": 1}
    assert results[7]["output"] == {"system": ["base", "be careful"]}
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.execute.before", "--session", "ses_1")
    assert [json.loads(line).get("decision") for line in tail.stdout.splitlines()] == ["deny", "allow", "ask", None]


def test_an_input_over_the_frame_limit_is_denied_when_a_guard_is_configured(env: Env, daemon_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    env.write_global_hooks(hooks_yaml(write_script(tmp_path / "answer.py", ANSWER)))
    daemon_factory("--max-frame", "65536")
    plugin = install(env)
    big = "x" * 70000
    cases = [
        {"event": "tool.execute.before", "input": {"tool": "write", "sessionID": "s"}, "output": {"args": {"content": big}}},
        {"event": "chat.headers", "input": {"sessionID": "s"}, "output": {"headers": {"h": big}}},
        {"event": "tool.execute.before", "input": {"tool": "bash", "sessionID": "s"}, "output": {"args": {"command": "ls"}}},
    ]
    results = drive(env, plugin, cases)
    assert "over hookd's frame limit of 65536 bytes" in results[0]["thrown"] and "answer-0" in results[0]["thrown"]
    assert results[1]["thrown"] is None
    assert results[2]["thrown"] is None


def test_daemon_down_proceeds_or_fails_closed(env: Env) -> None:
    plugin = install(env, "--bridge-args", "--timeout 1")
    case = {"event": "tool.execute.before", "input": {"tool": "bash", "sessionID": "s"}, "output": {"args": {"command": "ls"}}}
    assert drive(env, plugin, [case]) == [{"output": {"args": {"command": "ls"}}, "thrown": None}]
    closed = install(env, "--bridge-args", "--fail-closed --timeout 1")
    [result] = drive(env, closed, [case])
    assert result["thrown"].startswith("Blocked by hookd: tool.approval.pre and tool.execute.before not checked")
    # Install with other options rewrote the one plugin file; uninstall still removes it.
    assert env.hookd("bridge", "uninstall", "opencode").returncode == 0
    assert not closed.exists()


# A guard on tool.approval.pre that records what it was given and answers what RULES says for the command.
APPROVAL = """
import json, os, sys
p = json.load(sys.stdin)
with open(os.environ["SEEN"], "a") as f:
    f.write(json.dumps(p) + "\\n")
rules = json.loads(os.environ["RULES"])
print(json.dumps(rules.get(p.get("args", {}).get("command", ""))))
"""


def test_a_tool_call_is_decided_in_hookd_s_vocabulary_first(env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    rules = {
        "rm -rf /": {"decision": "deny", "reason": "no recursive force delete"},
        # The whole new input, as a guard sends it: hookd's `cwd` changed, opencode's `workdir` left as it was sent.
        "make": {"decision": "allow", "modifiedInput": {"command": "make -n", "workdir": "/tmp", "cwd": "/srv", "timeout": 5}},
        "ask me": {"decision": "ask"},
    }
    guard = write_script(tmp_path / "approval.py", APPROVAL)
    env.env.update(SEEN=str(seen), RULES=json.dumps(rules))
    answer = write_script(tmp_path / "answer.py", ANSWER)
    env.write_global_hooks(
        "hooks:\n"
        f"  - {{name: approval, point: tool.approval.pre, type: decision, command: {guard}, enabled: true,"
        " match: {toolName: '^execute_command$'}}\n"
        f"  - {{name: answer, point: tool.execute.before, type: decision, command: {answer}, enabled: true}}\n"
        f"  - {{name: chat, point: chat.message, type: decision, command: {answer}, enabled: true}}\n"
    )
    daemon_factory()
    plugin = install(env)
    bash = {"tool": "bash", "sessionID": "ses_v", "callID": "c1"}
    cases = [
        {"event": "tool.execute.before", "input": bash, "output": {"args": {"command": "rm -rf /", "workdir": "/tmp"}}},
        {"event": "tool.execute.before", "input": bash, "output": {"args": {"command": "make", "workdir": "/tmp", "timeout": 5}}},
        {"event": "tool.execute.before", "input": bash, "output": {"args": {"command": "ask me"}}},
        {"event": "tool.execute.before", "input": {**bash, "tool": "read"}, "output": {"args": {"filePath": "/etc/hosts"}}},
        {"event": "chat.message", "input": {"sessionID": "ses_v", "agent": "build"}, "output": {"message": {}, "parts": []}},
    ]
    results = drive(env, plugin, cases)
    assert results[0]["thrown"] == "Blocked by hookd (approval): no recursive force delete"
    # The rewrite changed hookd's name; opencode gets it under its own (cwd -> workdir).
    assert results[1] == {"output": {"args": {"command": "make -n", "workdir": "/srv", "timeout": 5}}, "thrown": None}
    assert "asks for confirmation" in results[2]["thrown"]
    assert results[3]["thrown"] is None  # not a shell command: the guard's match skips it
    calls = [json.loads(line) for line in seen.read_text().splitlines()]
    assert len(calls) == 3
    assert calls[0] == {
        "toolName": "execute_command",
        "agentToolName": "bash",
        "agent": "opencode",
        "args": {"command": "rm -rf /", "workdir": "/tmp", "cwd": "/tmp"},
        "sessionID": "ses_v",
        "callID": "c1",
    }
    # tool.execute.before still sees the call as opencode names it, after the rewrite, and names the agent.
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.execute.before", "--session", "ses_v")
    payloads = [json.loads(line)["payload"] for line in tail.stdout.splitlines()]
    assert [p["args"] for p in payloads] == [{"command": "make -n", "workdir": "/srv", "timeout": 5}, {"filePath": "/etc/hosts"}]
    assert {p["agent"] for p in payloads} == {"opencode"} and payloads[0]["tool"] == "bash"
    chat = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "chat.message", "--session", "ses_v")
    [message] = [json.loads(line)["payload"] for line in chat.stdout.splitlines()]
    assert message["agent"] == "opencode" and message["opencodeAgent"] == "build"
