"""The agent's environment through the shim and the HTTP hooks: a hook that came from Claude Code sees every
variable Claude Code gave the shim (a webhook URL, an API token), as it would run directly; no other hook, and
not the journal, ever sees them. Real daemon, real shim, real hooks."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from hookd.agents import shim

from ..conftest import Env, write_script
from .httphooks import endpoint

SECRET = "tok-s3cret-4e1b9"
START = {"session_id": "s-env", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp", "hook_event_name": "SessionStart", "source": "startup"}
PRE = {**START, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}

# In the style of published notification hooks: reads its credentials from the environment.
CLAUDE_HOOK = """
import json, os, sys
json.load(sys.stdin)
with open(os.environ["SEEN"], "a") as f:
    f.write(json.dumps({k: os.environ.get(k) for k in ("NOTIFY_API_TOKEN", "SLACK_WEBHOOK_URL", "HOOKD_BRIDGE_TOKEN")}) + "\\n")
"""
NATIVE_HOOK = """
import os, sys
with open(os.environ["STDIN_SEEN"], "ab") as f:
    f.write(sys.stdin.buffer.read() + b"\\n")
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    if shim.compiler() is None:
        pytest.skip("no C compiler on this machine")
    result = shim.build(tmp_path_factory.mktemp("shim"))
    assert result.path is not None, result.why
    return result.path


def journal_text(env: Env, want: str, timeout: float = 60) -> str:
    path = env.state / "hookd" / "events.jsonl"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = path.read_text(errors="replace") if path.exists() else ""
        if want in text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"the journal never recorded {want!r}")


def test_hooks_from_claude_code_get_the_agents_secrets_and_nothing_else_does(built: str, env: Env, daemon_factory, tmp_path: Path) -> None:
    seen = tmp_path / "seen.jsonl"
    stdin_seen = tmp_path / "stdin.txt"
    claude_hook = write_script(tmp_path / "notify.py", CLAUDE_HOOK)
    native_hook = write_script(tmp_path / "native.py", NATIVE_HOOK)
    env.write_global_hooks(
        f"""
        hooks:
          - name: notify
            point: tool.approval.pre
            type: observer
            format: claude-code
            command: {claude_hook}
            enabled: true
          - name: native
            point: tool.approval.pre
            type: observer
            command: {native_hook}
            enabled: true
        """
    )
    env.env.update(SEEN=str(seen), STDIN_SEEN=str(stdin_seen))
    ep = endpoint(daemon_factory())
    token_file = str(env.state / "hookd" / "http-token")
    agent = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE_")}
    agent.update(NOTIFY_API_TOKEN=SECRET, SLACK_WEBHOOK_URL="https://hooks.example.invalid/T0", HOOKD_BRIDGE_TOKEN="x" * 43)
    done = subprocess.run(
        [built, "SessionStart", str(ep.port), token_file], input=json.dumps(START).encode(), env=agent, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # Then an HTTP hook, which forwards only what its settings allow (here PATH).
    status, _ = ep.post(PRE, headers={"X-Hookd-Env-PATH": os.environ["PATH"]})
    assert status == 200
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (seen.exists() and stdin_seen.exists() and seen.read_text() and stdin_seen.read_text()):
        time.sleep(0.05)
    (row,) = [json.loads(line) for line in seen.read_text().splitlines()]
    assert row == {"NOTIFY_API_TOKEN": SECRET, "SLACK_WEBHOOK_URL": "https://hooks.example.invalid/T0", "HOOKD_BRIDGE_TOKEN": None}
    stdin = stdin_seen.read_text()
    assert '"agentToolName":"Bash"' in stdin.replace(" ", "") and SECRET not in stdin and "agentEnv" not in stdin
    journal = journal_text(env, "tool.approval.pre")
    assert SECRET not in journal and "hooks.example.invalid" not in journal
