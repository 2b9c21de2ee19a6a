"""`hookd bridge gemini`, `hookd bridge install|uninstall gemini|qwen` and `hookd import gemini|qwen`, through
the CLI, on real settings files and against a real daemon running real YAML hooks."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

from ..conftest import HOOKD, Env, write_script

# A Gemini CLI settings file as a user has it: other settings, own hooks.
GEMINI_SETTINGS = (
    json.dumps(
        {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "hooks": {
                "BeforeTool": [
                    {
                        "matcher": "write_file|replace",
                        "hooks": [{"type": "command", "name": "lint", "command": "./lint.sh", "timeout": 5000}],
                    }
                ],
                "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
            },
            "ui": {"theme": "Default"},
        },
        indent=2,
    )
    + "\n"
)
QWEN_SETTINGS = (
    json.dumps(
        {
            "security": {"auth": {"selectedType": "openai"}},
            "env": {"FOO": "bar"},
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "^run_shell_command$",
                        "hooks": [{"type": "command", "command": '"$QWEN_PROJECT_DIR/check.sh"', "timeout": 10000}],
                    }
                ],
                "Stop": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/stop"}]}],
            },
        },
        indent=2,
    )
    + "\n"
)


def _before_tool(project: Path, command: str, session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-01T09:12:04.745Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "d"},
    }


def _bridge(env: Env, data: dict[str, Any], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HOOKD, "bridge", "gemini", *args], input=json.dumps(data), env=env.env, capture_output=True, text=True, timeout=60
    )


def test_gemini_install_then_uninstall_leaves_the_file_byte_identical(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(GEMINI_SETTINGS)
    r = env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    doc = json.loads(settings.read_text())
    original = json.loads(GEMINI_SETTINGS)
    assert doc["security"] == original["security"] and doc["ui"] == original["ui"]
    for event in ("BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "SessionStart", "SessionEnd", "PreCompress"):
        command = f"/opt/hookd/bin/hookd bridge gemini --timeout 28 --event {event}"
        ours = {"matcher": "*", "hooks": [{"type": "command", "name": "hookd", "command": command, "timeout": 30000}]}
        assert doc["hooks"][event][-1] == ours, event
    # The events Gemini CLI fires on every model request are left out (a process each).
    assert not {"AfterModel", "BeforeModel", "BeforeToolSelection"} & set(doc["hooks"])
    assert doc["hooks"]["BeforeTool"][0] == original["hooks"]["BeforeTool"][0]
    again = env.hookd("bridge", "install", "gemini", "--settings", str(settings), "--command", "/opt/hookd/bin/hookd", "--timeout", "30")
    assert again.returncode == 0 and "already" in again.stdout
    gone = env.hookd("bridge", "uninstall", "gemini", "--settings", str(settings))
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == GEMINI_SETTINGS
    assert not Path(str(settings) + ".hookd-backup").exists()
    assert not (env.state / "hookd" / "installs").exists()


def test_gemini_project_scope_and_no_local_scope(env: Env, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    run = [*HOOKD, "bridge", "install", "gemini", "--project", "--command", "hookd"]
    r = subprocess.run(run, cwd=project, env=env.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "BeforeTool" in json.loads((project / ".gemini" / "settings.json").read_text())["hooks"]
    r = subprocess.run(
        [*HOOKD, "bridge", "uninstall", "gemini", "--project"], cwd=project, env=env.env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0 and not (project / ".gemini" / "settings.json").exists()
    r = subprocess.run(
        [*HOOKD, "bridge", "install", "gemini", "--local"], cwd=project, env=env.env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 1 and "no local settings file" in r.stderr


def test_qwen_install_writes_http_hooks_and_uninstall_restores_the_file(env: Env, daemon_factory, tmp_path: Path) -> None:
    daemon_factory()
    settings = tmp_path / "settings.json"
    settings.write_text(QWEN_SETTINGS)
    r = env.hookd("bridge", "install", "qwen", "--settings", str(settings))
    assert r.returncode == 0, r.stderr
    doc = json.loads(settings.read_text())
    [hook] = doc["hooks"]["PreToolUse"][-1]["hooks"]
    assert hook["type"] == "http" and hook["url"].endswith("/qwen/PreToolUse") and hook["timeout"] == 600
    assert "onFailure" not in hook and hook["headers"]["Authorization"] == "Bearer $HOOKD_BRIDGE_TOKEN"
    assert doc["env"]["FOO"] == "bar" and doc["env"]["HOOKD_BRIDGE_TOKEN"]
    assert settings.stat().st_mode & 0o777 == 0o600
    assert "TodoCreated" in doc["hooks"] and "MessageDisplay" not in doc["hooks"] and "TeammateIdle" not in doc["hooks"]
    closed = env.hookd("bridge", "install", "qwen", "--settings", str(settings), "--fail-closed", "--no-shim")
    assert closed.returncode == 0, closed.stderr
    [pre] = json.loads(settings.read_text())["hooks"]["PreToolUse"][-1]["hooks"]
    assert pre["type"] == "command" and "bridge qwen" in pre["command"] and "--fail-closed" in pre["command"]
    gone = env.hookd("bridge", "uninstall", "qwen", "--settings", str(settings))
    assert gone.returncode == 0, gone.stderr
    assert settings.read_text() == QWEN_SETTINGS


def test_the_bridge_answers_gemini_cli_from_a_real_daemon(env: Env, daemon_factory, tmp_path: Path) -> None:
    guard = write_script(
        tmp_path / "guard.py",
        """
        import json, sys
        p = json.load(sys.stdin)
        cmd = p["args"]["command"]
        if "rm -rf" in cmd:
            print(json.dumps({"decision": "deny", "reason": "no recursive force delete"}))
        elif cmd.startswith("echo original"):
            print(json.dumps({"decision": "allow", "modifiedInput": dict(p["args"], command="echo rewritten")}))
        else:
            print("null")
        """,
    )
    env.write_global_hooks(
        "hooks:\n  - name: g\n    point: tool.approval.pre\n    type: decision\n" + f"    command: {guard}\n    enabled: true\n"
    )
    daemon_factory()
    r = _bridge(env, _before_tool(tmp_path, "rm -rf /"))
    assert r.returncode == 0 and json.loads(r.stdout) == {"decision": "deny", "reason": "no recursive force delete"}, r.stderr
    r = _bridge(env, _before_tool(tmp_path, "echo original"))
    assert json.loads(r.stdout) == {
        "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "echo rewritten", "description": "d"}}
    }
    assert json.loads(_bridge(env, _before_tool(tmp_path, "ls")).stdout) == {}
    r = _bridge(env, {**_before_tool(tmp_path, "ls"), "hook_event_name": "SessionEnd", "reason": "exit"})
    assert r.returncode == 0 and json.loads(r.stdout) == {}, r.stderr


def test_when_hookd_is_down_the_agent_proceeds_or_with_fail_closed_the_tool_is_denied(env: Env, tmp_path: Path) -> None:
    r = _bridge(env, _before_tool(tmp_path, "ls"), "--timeout", "5")
    assert r.returncode == 0 and r.stdout == "" and "hookd is not running" in r.stderr and "the agent proceeds" in r.stderr
    r = _bridge(env, _before_tool(tmp_path, "ls"), "--timeout", "5", "--fail-closed")
    out = json.loads(r.stdout)
    assert out["decision"] == "deny" and "hookd is not running" in out["reason"] and "denying" in r.stderr
    r = _bridge(env, {**_before_tool(tmp_path, "ls"), "hook_event_name": "AfterTool"}, "--timeout", "5", "--fail-closed")
    assert r.stdout == ""
    r = subprocess.run([*HOOKD, "bridge", "gemini"], input="[1]", env=env.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "bad hook input" in r.stderr


def test_gemini_hooks_import_and_keep_gemini_clis_rules(env: Env, daemon_factory, tmp_path: Path) -> None:
    # One Gemini CLI hook blocks with exit 2, another rewrites: Gemini CLI runs both and the block wins.
    block = write_script(
        tmp_path / "block.py",
        """
        import json, os, sys
        data = json.load(sys.stdin)
        assert data["hook_event_name"] == "BeforeTool" and os.environ["GEMINI_PROJECT_DIR"] == data["cwd"]
        if data["tool_input"]["command"].startswith("rm"):
            print("Blocked: rm", file=sys.stderr)
            sys.exit(2)
        """,
    )
    rewrite = write_script(
        tmp_path / "rewrite.py",
        """
        import json, sys
        data = json.load(sys.stdin)
        if data["tool_input"]["command"] == "echo original":
            print(json.dumps({"decision": "allow", "hookSpecificOutput": {"tool_input": {"command": "echo rewritten"}}}))
        """,
    )
    settings = tmp_path / "settings.json"
    hooks = [{"type": "command", "command": str(p), "timeout": 9500} for p in (block, rewrite)]
    settings.write_text(json.dumps({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": hooks}]}}, indent=2) + "\n")
    before = settings.read_bytes()
    out = env.config / "hookd" / "hooks.yaml"
    r = env.hookd("import", "gemini", str(settings), "-o", str(out))
    assert r.returncode == 0, r.stderr
    imported = {h["name"]: h for h in yaml.safe_load(out.read_text())["hooks"]}
    first = imported["gemini-before-tool-1"]
    assert (first["point"], first["type"], first["group"], first["combine"]) == ("tool.approval.pre", "decision", "gemini", "strictest")
    assert first["match"] == {"toolName": "run_shell_command"} and first["timeout"] == 10
    assert first["args"][-7:-3] == ["gemini", "--event", "BeforeTool", "--"] and first["args"][-1] == str(block)
    assert "BeforeTool" not in json.loads(settings.read_text()).get("hooks", {})  # moved: they must not run twice
    daemon_factory()
    r = _bridge(env, _before_tool(tmp_path, "rm -rf build"))
    assert json.loads(r.stdout) == {"decision": "deny", "reason": "Blocked: rm"}, r.stderr
    r = _bridge(env, _before_tool(tmp_path, "echo original"))
    assert json.loads(r.stdout)["hookSpecificOutput"]["tool_input"] == {"command": "echo rewritten", "description": "d"}
    check = env.hookd("check", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    undo = env.hookd("import", "gemini", "--undo", str(settings))
    assert undo.returncode == 0, undo.stderr
    assert settings.read_bytes() == before


def test_qwen_hooks_import_as_claude_code_hooks_with_qwen_codes_units(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(QWEN_SETTINGS)
    r = env.hookd("import", "qwen", str(settings))
    assert r.returncode == 0, r.stderr
    [hook] = yaml.safe_load(r.stdout)["hooks"]
    assert hook["name"] == "qwen-pre-tool-use-1" and hook["format"] == "claude-code" and hook["group"] == "qwen"
    assert hook["timeout"] == 10  # 10000 is milliseconds in Qwen Code
    assert hook["args"][-1].startswith('QWEN_PROJECT_DIR="${QWEN_PROJECT_DIR:-$CLAUDE_PROJECT_DIR}"; export QWEN_PROJECT_DIR; ')
    assert "Qwen Code runs it" in r.stderr  # the http hook stays
    assert settings.read_text() == QWEN_SETTINGS
