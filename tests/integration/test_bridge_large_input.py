"""A tool input too large for one frame never slips past a guard: the bridge sends each field once, and
what still does not fit is denied when a guard would run, and allowed only when none is configured."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import Env, write_script

MIB = 1024 * 1024
COMMON = {"session_id": "big1", "transcript_path": "/t.jsonl", "permission_mode": "default"}

GUARD = """
import json, sys
p = json.load(sys.stdin)
content = p["args"].get("content", "")
print(json.dumps({"decision": "deny", "reason": f"guard saw {len(content)} characters"}))
"""


def _write(env: Env, size: int, *args: str) -> tuple[int, object, str]:
    data = {
        **COMMON,
        "cwd": str(env.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(env.root / "big.txt"), "content": "y" * size},
        "tool_use_id": "toolu_big",
    }
    r = env.hookd("bridge", "claude-code", *args, input=json.dumps(data), timeout=60)
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip() else None), r.stderr


def _guard(env: Env, tmp_path: Path) -> None:
    guard = write_script(tmp_path / "guard.py", GUARD)
    env.write_global_hooks(
        f"""
        hooks:
          - name: no-big-writes
            point: tool.approval.pre
            type: decision
            command: {guard}
            enabled: true
        """
    )


def test_an_input_over_half_the_frame_limit_reaches_the_guard(env: Env, daemon_factory, tmp_path: Path) -> None:
    _guard(env, tmp_path)
    daemon_factory()
    size = 700 * 1024  # sent twice this was over 1 MiB and never reached the guard
    code, out, err = _write(env, size)
    assert code == 0, err
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"guard saw {size} characters",
        }
    }


def test_an_input_over_the_frame_limit_is_denied_when_a_guard_is_configured(env: Env, daemon_factory, tmp_path: Path) -> None:
    _guard(env, tmp_path)
    daemon_factory()
    for args in ((), ("--fail-closed",)):
        code, out, err = _write(env, 2 * MIB, *args)
        assert code == 0, err
        specific = out["hookSpecificOutput"]  # type: ignore[index]
        assert specific["permissionDecision"] == "deny"
        reason = specific["permissionDecisionReason"]
        assert "over hookd's frame limit of 1048576 bytes" in reason and "'no-big-writes'" in reason
        size = int(reason.split(" input is ")[1].split(" bytes")[0])
        assert size > 2 * MIB
        assert "Broken pipe" not in reason + err
        assert "guard 'no-big-writes' did not run: too_large" in out["systemMessage"]  # type: ignore[index]


def test_an_input_over_the_frame_limit_is_allowed_when_no_guard_is_configured(env: Env, daemon_factory) -> None:
    daemon_factory()
    for args in ((), ("--fail-closed",)):
        code, out, err = _write(env, 2 * MIB, *args)
        assert code == 0, err
        assert out is None, out  # Claude Code's normal flow: nothing configured, nothing to say
        assert "over hookd's frame limit" in err and "Broken pipe" not in err
