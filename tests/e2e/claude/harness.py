"""Drive the real Claude Code CLI offline: a scripted Messages API on 127.0.0.1 and a sandboxed HOME.

The CLI comes from this directory's package.json (``npm ci`` here). The model
is the end-to-end suites' scripted model (tests/e2e/scripted.py) on its Messages
wire: each step is what the assistant says next, a tool call or text, streamed
as server-sent events exactly as the Messages API does (message_start,
content_block_start/delta/stop with ``input_json_delta``, message_delta,
message_stop). Which step answers a request is the number of assistant turns
already in it, so a retried request gets the same answer. Requests that carry
no tools (titles, summaries) get a short text.

Usage::

    with ScriptedModel([tool("Bash", {"command": "echo hi"}), text("done")]) as model:
        result = run_claude(model, home=tmp / "home", cwd=project, prompt="go")
        result.json["permission_denials"], model.requests

Every request the CLI sent is kept in ``model.requests`` (parsed JSON), so a
test can see what reached the model: a tool's result, a hook's context.

With ``ready_file``, an answer carrying a tool call waits (at most a minute)
until that file exists: a test uses it to let another program attach its
session hooks before the agent runs the tool.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.scripted import Messages, Model, Step, text, tool

__all__ = ["ScriptedModel", "Step", "require_claude", "run_claude", "text", "tool", "write_settings"]

HERE = Path(__file__).resolve().parent
CLAUDE = HERE / "node_modules" / ".bin" / "claude"
# The last Claude Code npm installs on Node 18 and 20 (2.1.197), which ignores onFailure on HTTP hooks.
NODE20_CLAUDE = HERE.parent / "claude-node20" / "node_modules" / ".bin" / "claude"
MODEL = "claude-sonnet-4-5-20250929"


def claude_binary(path: Path = CLAUDE) -> Path | None:
    """The CLI installed at ``path``, or None."""
    return path if path.exists() and os.access(path, os.X_OK) else None


def require_claude(path: Path = CLAUDE) -> Path:
    """The CLI, or skip the test; in CI (``$CI`` set) a missing CLI fails instead of skipping."""
    import pytest

    found = claude_binary(path)
    if found is not None:
        return found
    suite = path.parent.parent.parent
    if os.environ.get("CI"):
        pytest.fail(f"the Claude Code CLI is missing at {path}; run `npm ci` in {suite} (make e2e-deps)")
    pytest.skip(f"the Claude Code CLI is not installed at {path} (npm ci in {suite})")


class ScriptedModel(Model):
    """A Messages API on 127.0.0.1 that answers from a script (tests/e2e/scripted.py, its Messages wire)."""

    def __init__(self, steps: Sequence[Step], final: str = "done", ready_file: Path | None = None, **when: Any) -> None:
        # ``when``: Model's asking and told, called as the tool call goes out and as its result comes back.
        super().__init__(Messages(model=MODEL), steps, final=final, ready_file=ready_file, **when)


@dataclass
class Session:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict[str, Any]:
        """The `--output-format json` result (the last JSON line of stdout)."""
        for line in reversed(self.stdout.strip().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError(f"claude printed no JSON result (exit {self.returncode}):\n{self.stdout}\n{self.stderr}")


def claude_env(model: ScriptedModel, home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of an offline session: HOME in the sandbox, the model on 127.0.0.1."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        ANTHROPIC_BASE_URL=model.url,
        ANTHROPIC_API_KEY="sk-ant-offline-test",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
    )
    env.pop("NO_COLOR", None)
    if extra:
        env.update(extra)
    return env


def write_settings(home: Path, settings: Mapping[str, Any]) -> Path:
    """~/.claude/settings.json in the sandbox."""
    path = home / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings, indent=2) + "\n")
    return path


def run_claude(
    model: ScriptedModel,
    home: Path,
    cwd: Path,
    prompt: str = "go",
    args: Sequence[str] = ("--allowedTools", "Bash"),
    env: Mapping[str, str] | None = None,
    timeout: float = 180,
    cli: Path = CLAUDE,
) -> Session:
    """One `claude -p` session, run to its end, by the CLI at ``cli``."""
    binary = require_claude(cli)
    home.mkdir(parents=True, exist_ok=True)
    cwd.mkdir(parents=True, exist_ok=True)
    argv = [str(binary), "-p", prompt, "--output-format", "json", "--model", MODEL, *args]
    # PWD names the project, as a shell's would (see tests/e2e/harness.py's run_agent).
    environ = {**claude_env(model, home, env), "PWD": str(cwd)}
    done = subprocess.run(argv, cwd=cwd, env=environ, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return Session(done.returncode, done.stdout, done.stderr)


def have_npm() -> bool:
    return shutil.which("npm") is not None
