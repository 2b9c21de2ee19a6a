"""`hookd import claude-code`: hooks written for Claude Code, moved under a real daemon, keep Claude Code's rules.

Each test imports a real settings file with the CLI, starts a real daemon on the hooks file the import
wrote, and sends hook inputs through the bridge (`hookd bridge claude-code`), as Claude Code would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from ..conftest import HOOKD, Env, write_script

USER_SETTINGS = (
    json.dumps(
        {
            "model": "claude-sonnet-4-6",
            "permissions": {"allow": ["Bash(npm run lint)"]},
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "python3 .claude/hooks/check.py", "timeout": 30}]},
                    {
                        "matcher": "Edit|Write",
                        "hooks": [
                            {"type": "command", "command": "jq . >/dev/null"},
                            {"type": "http", "url": "http://127.0.0.1:9/hook"},
                        ],
                    },
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "if": "Bash(git push *)"}]},
                ],
                "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ctx"}]}],
                "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi", "async": True}]}],
                "TaskCreated": [{"hooks": [{"type": "command", "command": "true"}]}],
            },
        },
        indent=2,
    )
    + "\n"
)


def _bridge(env: Env, data: dict[str, Any], extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    run_env = {**env.env, **(extra_env or {})}
    return subprocess.run(
        [*HOOKD, "bridge", "claude-code"], input=json.dumps(data), env=run_env, capture_output=True, text=True, timeout=60
    )


def _import(env: Env, settings: Path, *extra: str) -> Path:
    out = env.config / "hookd" / "hooks.yaml"
    r = env.hookd("import", "claude-code", str(settings), "-o", str(out), *extra)
    assert r.returncode == 0, r.stderr
    return out


def _settings(tmp_path: Path, hooks: dict[str, Any]) -> Path:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    return settings


def _pre_tool_use(project: Path, command: str = "ls", session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def test_import_writes_claude_code_hooks_in_a_strictest_group(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS)
    r = env.hookd("import", "claude-code", str(settings))
    assert r.returncode == 0, r.stderr
    hooks = {h["name"]: h for h in yaml.safe_load(r.stdout)["hooks"]}
    first = hooks["claude-pre-tool-use-1"]
    assert first["format"] == "claude-code" and (first["group"], first["combine"]) == ("claude-code", "strictest")
    assert first["args"] == ["-c", "python3 .claude/hooks/check.py"] and first["command"].endswith("sh")
    assert (first["match"], first["timeout"]) == ({"toolName": "^(?:Bash)$"}, 30)
    assert hooks["claude-pre-tool-use-2"]["timeout"] == 600  # Claude Code's default
    assert hooks["claude-user-prompt-submit-1"]["timeout"] == 30  # ... and UserPromptSubmit's
    # The `if` rule becomes a match on the tool and on its input.
    assert hooks["claude-pre-tool-use-3"]["match"]["toolName"] == "(?=^(?:Bash)$)^Bash$"
    assert "args.command" in hooks["claude-pre-tool-use-3"]["match"]
    assert hooks["claude-notification-1"]["type"] == "observer" and "group" not in hooks["claude-notification-1"]
    assert hooks["claude-task-created-1"]["point"] == "custom.claude.TaskCreated"
    assert hooks["claude-task-created-1"]["type"] == "decision"
    assert "'http' handler was not imported and stays" in r.stderr
    # Without -o nothing is moved.
    assert settings.read_text() == USER_SETTINGS
    # What import writes is a valid hooks file.
    out = tmp_path / "hooks.yaml"
    out.write_text(r.stdout)
    check = env.hookd("check", str(out))
    assert check.returncode == 0, check.stdout + check.stderr


def test_import_moves_the_hooks_out_and_undo_restores_the_file_byte_for_byte(env: Env, tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(USER_SETTINGS)
    settings.chmod(0o600)
    out = _import(env, settings)
    moved = json.loads(settings.read_text())
    # Only what hookd now runs left the file: the http hook stays, other settings stay.
    assert moved["model"] == "claude-sonnet-4-6" and moved["permissions"] == {"allow": ["Bash(npm run lint)"]}
    assert moved["hooks"] == {"PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/hook"}]}]}
    assert settings.read_text().startswith('{\n  "model"')  # the file keeps its style
    assert settings.stat().st_mode & 0o777 == 0o600
    assert out.exists()
    again = env.hookd("import", "claude-code", str(settings), "-o", str(tmp_path / "other.yaml"))
    assert again.returncode == 1 and "was not undone" in again.stderr
    assert not (tmp_path / "other.yaml").exists()
    r = env.hookd("import", "claude-code", "--undo", str(settings))
    assert r.returncode == 0, r.stderr
    assert settings.read_bytes() == USER_SETTINGS.encode()
    assert not out.exists() and "removed" in r.stderr
    r = env.hookd("import", "claude-code", "--undo", str(settings))
    assert r.returncode == 1 and "nothing to undo" in r.stderr


def test_two_imported_guards_combine_strictest_as_in_claude_code(env: Env, daemon_factory, tmp_path: Path) -> None:
    # One guard allows everything, the other denies rm: Claude Code runs both and the deny wins.
    allow = write_script(
        tmp_path / "allow.py",
        """
        import json
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}))
        """,
    )
    deny_rm = write_script(
        tmp_path / "deny_rm.py",
        """
        import json, sys
        data = json.load(sys.stdin)
        if data["tool_input"]["command"].startswith("rm"):
            print("Blocked: rm", file=sys.stderr)
            sys.exit(2)
        """,
    )
    settings = _settings(
        tmp_path, {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(p)} for p in (allow, deny_rm)]}]}
    )
    _import(env, settings)
    daemon_factory()
    r = _bridge(env, _pre_tool_use(tmp_path, "rm -rf build"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "Blocked: rm",
    }
    r = _bridge(env, _pre_tool_use(tmp_path, "ls"))
    assert json.loads(r.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_imported_hooks_run_in_the_project_with_the_agents_environment(env: Env, daemon_factory, tmp_path: Path) -> None:
    # A relative script path, a tool found only on the agent's PATH, and the agent's own variables.
    project = tmp_path / "repo"
    tools = tmp_path / "agent-bin"
    tools.mkdir()
    write_script(
        tools / "guard-tool",
        """
        import json, os, sys
        data = json.load(sys.stdin)
        context = f"cwd={os.getcwd()} project={os.environ.get('CLAUDE_PROJECT_DIR')} mine={os.environ.get('AGENT_ONLY')}"
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": context}}))
        """,
    )
    write_script(project / ".claude" / "hooks" / "rel.py", "import sys\nprint('rel ran', file=sys.stderr)\nsys.exit(2)\n")
    settings = _settings(
        tmp_path,
        {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard-tool"}]},
                {"matcher": "Read", "hooks": [{"type": "command", "command": ".claude/hooks/rel.py"}]},
            ]
        },
    )
    _import(env, settings)
    daemon_factory()
    agent = {"PATH": f"{tools}:{os.environ['PATH']}", "AGENT_ONLY": "yes", "CLAUDE_PROJECT_DIR": str(project)}
    r = _bridge(env, _pre_tool_use(project), agent)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context == f"cwd={project} project={project} mine=yes"
    read = {**_pre_tool_use(project), "tool_name": "Read", "tool_input": {"file_path": "x"}}
    r = _bridge(env, read, agent)
    assert json.loads(r.stdout)["hookSpecificOutput"]["permissionDecisionReason"] == "rel ran"


def test_plugin_root_is_kept_on_import(env: Env, daemon_factory, tmp_path: Path) -> None:
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    write_script(plugin / "scripts" / "ctx.py", "print('from the plugin')\n")
    hooks_json = plugin / "hooks" / "hooks.json"
    hooks_json.parent.mkdir()
    hooks_json.write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/ctx.py"}]}]}})
    )
    out = env.config / "hookd" / "hooks.yaml"
    r = env.hookd("import", "claude-code", str(hooks_json), "-o", str(out), "--keep")
    assert r.returncode == 0, r.stderr
    assert yaml.safe_load(out.read_text())["hooks"][0]["env"] == {"CLAUDE_PLUGIN_ROOT": str(plugin)}
    daemon_factory()
    prompt = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit", "prompt": "hi"}
    r = _bridge(env, prompt)
    assert json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"] == "from the plugin"


def test_a_hook_needing_an_unknown_plugin_root_stays_where_claude_code_runs_it(env: Env, tmp_path: Path) -> None:
    needs_root = {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/x.py"}
    settings = _settings(tmp_path, {"Stop": [{"hooks": [needs_root, {"type": "command", "command": "true"}]}]})
    out = _import(env, settings)
    assert [h["command"] for h in yaml.safe_load(out.read_text())["hooks"]] == [shutil.which("bash")]
    assert json.loads(settings.read_text())["hooks"] == {"Stop": [{"hooks": [needs_root]}]}


def test_errors_and_agent_fields_reach_the_agent(env: Env, daemon_factory, tmp_path: Path) -> None:
    failing = write_script(tmp_path / "fail.py", "import sys\nprint('lint missing', file=sys.stderr)\nsys.exit(1)\n")
    stopper = write_script(
        tmp_path / "stop.py",
        """
        import json
        print(json.dumps({"continue": False, "stopReason": "build broke", "systemMessage": "see ci.log"}))
        """,
    )
    settings = _settings(tmp_path, {"Stop": [{"hooks": [{"type": "command", "command": str(p)} for p in (failing, stopper)]}]})
    _import(env, settings)
    daemon_factory()
    stop = {"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "Stop", "stop_hook_active": False}
    r = _bridge(env, stop)
    out = json.loads(r.stdout)
    assert out["continue"] is False and out["stopReason"] == "build broke"
    lines = out["systemMessage"].split("\n")
    assert lines[0] == "see ci.log"
    assert "Failed with non-blocking status code: lint missing" in lines[1]


def test_a_hook_past_its_timeout_is_cancelled_and_decides_nothing(env: Env, daemon_factory, tmp_path: Path) -> None:
    slow = write_script(tmp_path / "slow.py", 'import time\ntime.sleep(60)\nprint(\'{"decision": "block"}\')\n')
    settings = _settings(tmp_path, {"PreToolUse": [{"hooks": [{"type": "command", "command": str(slow), "timeout": 1}]}]})
    _import(env, settings)
    daemon_factory()
    r = _bridge(env, _pre_tool_use(tmp_path))
    out = json.loads(r.stdout)
    assert "hookSpecificOutput" not in out  # no decision, as Claude Code discards a timed-out hook
    assert "timeout" in out["systemMessage"]
