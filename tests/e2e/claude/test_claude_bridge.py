"""The real Claude Code CLI, offline, through hookd: `hookd bridge install` writes HTTP hooks (and the
shim where Claude Code takes only commands), a real daemon answers with real YAML hooks, and a scripted
model drives the session. Each test asserts what Claude Code did: what ran, what was denied, what the
model was told."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from ...conftest import Env, write_script
from .harness import ScriptedModel, require_claude, run_claude, text, tool

pytestmark = pytest.mark.timeout(300)

GUARD = """
import json, os, pathlib, sys
payload = json.load(sys.stdin)
seen = pathlib.Path(os.environ["SEEN"])
with seen.open("a") as f:
    f.write(json.dumps({"point": os.environ["HOOKD_POINT"], "payload": payload}) + "\\n")
rules = json.loads(pathlib.Path(os.environ["RULES"]).read_text())
answer = rules.get(os.environ["HOOKD_POINT"])
if isinstance(answer, list):  # one answer per call, then none
    count = sum(1 for line in seen.read_text().splitlines() if json.loads(line)["point"] == os.environ["HOOKD_POINT"])
    answer = answer[count - 1] if count <= len(answer) else None
if answer:
    print(json.dumps(answer))
"""

POINTS = ("tool.approval.pre", "agent.turn.stop", "agent.turn.start", "chat.message", "agent.subagent.complete")
SUBAGENT_TASK = "SUBAGENT-TASK: look around and report"


class SubagentModel(ScriptedModel):
    """The script for the main agent; a subagent (its first message is SUBAGENT_TASK) only answers text."""

    def step_for(self, request: dict[str, Any]) -> Any:
        messages = request.get("messages", [])
        if request.get("tools") and messages and SUBAGENT_TASK in json.dumps(messages[0]):
            turns = sum(1 for msg in messages if isinstance(msg, dict) and msg.get("role") == "assistant")
            return text(f"subagent report {turns}"), 5000 + turns
        return super().step_for(request)

    def subagent_requests(self) -> list[dict[str, Any]]:
        with self.lock:
            return [r for r in self.requests if r.get("tools") and SUBAGENT_TASK in json.dumps(r.get("messages", [])[:1])]


class Bridge:
    def __init__(self, env: Env, root: Path) -> None:
        self.env = env
        self.root = root
        self.seen = root / "seen.jsonl"
        self.rules = root / "rules.json"
        self.project = root / "project"
        self.project.mkdir(exist_ok=True)
        self.rules.write_text("{}")

    def answer(self, rules: dict[str, Any]) -> None:
        self.rules.write_text(json.dumps(rules))

    def calls(self, point: str) -> list[dict[str, Any]]:
        if not self.seen.exists():
            return []
        rows = [json.loads(line) for line in self.seen.read_text().splitlines()]
        return [r["payload"] for r in rows if r["point"] == point]

    def install(self, *args: str) -> None:
        r = self.env.hookd("bridge", "install", *args)
        assert r.returncode == 0, r.stderr

    def session(self, model: ScriptedModel, tools: str = "Bash", prompt: str = "go") -> Any:
        return run_claude(model, home=self.env.home, cwd=self.project, prompt=prompt, args=("--allowedTools", tools))


@pytest.fixture
def bridge(env: Env, tmp_path: Path) -> Bridge:
    require_claude()
    b = Bridge(env, tmp_path)
    guard = write_script(tmp_path / "guard.py", GUARD)
    lines = ["hooks:"]
    for point in POINTS:
        name = point.replace(".", "-")
        lines += [f"  - name: {name}", f"    point: {point}", "    type: decision", f"    command: {guard}", "    enabled: true"]
    env.write_global_hooks("\n".join(lines) + "\n")
    env.env.update(SEEN=str(b.seen), RULES=str(b.rules))
    return b


def denied_commands(result: dict[str, Any]) -> list[str]:
    return [d.get("tool_input", {}).get("command", "") for d in result.get("permission_denials", [])]


def test_a_hookd_guard_denies_a_bash_command_which_never_runs(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    bridge.answer({"tool.approval.pre": {"decision": "deny", "reason": "no writes to marker files"}})
    marker = bridge.project / "marker"
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = bridge.session(model)
    assert not marker.exists()
    assert denied_commands(session.json) == [f"touch {marker}"]
    assert any("no writes to marker files" in r for r in model.tool_results())
    (call,) = bridge.calls("tool.approval.pre")
    assert call["toolName"] == "execute_command" and call["agentToolName"] == "Bash" and call["agent"] == "claude-code"
    assert call["args"]["command"] == f"touch {marker}"


def test_allow_with_updated_input_runs_the_rewritten_command(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    out = bridge.project / "out.txt"
    bridge.answer({"tool.approval.pre": {"decision": "allow", "modifiedInput": {"command": f"echo rewritten > {out}"}}})
    with ScriptedModel([tool("Bash", {"command": f"echo original > {out}"}), text("done")]) as model:
        session = bridge.session(model)
    assert session.json["permission_denials"] == []
    assert out.read_text().strip() == "rewritten"


def test_ask_is_not_an_allow(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    marker = bridge.project / "asked"
    bridge.answer({"tool.approval.pre": {"decision": "ask", "reason": "a person must look at this"}})
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = bridge.session(model)
    # Nobody can answer a prompt in `claude -p`: the call is refused, even though Bash is allowed.
    assert not marker.exists()
    assert denied_commands(session.json) == [f"touch {marker}"]


def test_additional_context_reaches_the_model(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    bridge.answer({"tool.approval.pre": {"injection": "REMEMBER-THE-STYLE-GUIDE"}, "agent.turn.start": {"injection": "SESSION-NOTE-42"}})
    with ScriptedModel([tool("Bash", {"command": "true"}), text("done")]) as model:
        bridge.session(model)
    sent = json.dumps(model.main_requests())
    assert "REMEMBER-THE-STYLE-GUIDE" in sent
    # SessionStart takes only command hooks: this one went through the compiled shim.
    assert "SESSION-NOTE-42" in sent
    assert bridge.calls("agent.turn.start")


def test_a_blocked_stop_makes_the_agent_go_on(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    bridge.answer({"agent.turn.stop": [{"decision": "deny", "reason": "run the tests before stopping"}]})
    with ScriptedModel([text("first answer"), text("second answer")], final="third") as model:
        session = bridge.session(model)
    assert len(bridge.calls("agent.turn.stop")) == 2
    assert session.json["result"] == "second answer"
    assert "run the tests before stopping" in json.dumps(model.main_requests()[-1]["messages"])


def test_a_blocked_subagent_stop_makes_the_subagent_go_on(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    bridge.answer({"agent.subagent.complete": [{"decision": "deny", "reason": "also check the tests directory"}]})
    agent = {"description": "look around", "prompt": SUBAGENT_TASK, "subagent_type": "general-purpose"}
    with SubagentModel([tool("Agent", agent), text("done")]) as model:
        session = bridge.session(model, tools="Agent")
    assert session.json["is_error"] is False
    stops = bridge.calls("agent.subagent.complete")
    assert [c["stopHookActive"] for c in stops] == [False, True]
    assert stops[0]["agentType"] == "general-purpose"
    # Claude Code gave the reason to the subagent, which went on for one more turn.
    later = model.subagent_requests()[-1]["messages"]
    assert "also check the tests directory" in json.dumps(later)


def test_daemon_down_fails_open_by_default(bridge: Bridge, daemon_factory) -> None:
    daemon_factory().stop()
    bridge.install()
    marker = bridge.project / "ran"
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = bridge.session(model)
    assert marker.exists()
    assert session.json["permission_denials"] == []


def test_daemon_down_with_fail_closed_denies_tool_calls(bridge: Bridge, daemon_factory) -> None:
    daemon_factory().stop()
    bridge.install("--fail-closed")
    marker = bridge.project / "ran"
    with ScriptedModel([tool("Bash", {"command": f"touch {marker}"}), text("done")]) as model:
        session = bridge.session(model)
    assert not marker.exists()
    assert denied_commands(session.json) == [f"touch {marker}"]


def test_a_2_mib_write_reaches_the_guard(bridge: Bridge, daemon_factory) -> None:
    daemon_factory()
    bridge.install()
    bridge.answer({"tool.approval.pre": {"decision": "deny", "reason": "too big to write"}})
    target = bridge.project / "big.txt"
    content = ("0123456789abcdef" * 64 + "\n") * 2048  # a little over 2 MiB
    with ScriptedModel([tool("Write", {"file_path": str(target), "content": content}), text("done")]) as model:
        session = bridge.session(model, tools="Write")
    assert not target.exists()
    (call,) = bridge.calls("tool.approval.pre")
    assert call["toolName"] == "write_file" and call["agentToolName"] == "Write" and call["args"]["content"] == content
    assert [d["tool_name"] for d in session.json["permission_denials"]] == ["Write"]


def test_the_claude_cli_is_found_here_or_the_test_skips() -> None:
    # In CI ($CI set) a missing CLI fails instead: the suite must have run there.
    assert require_claude().exists() or not os.environ.get("CI")
