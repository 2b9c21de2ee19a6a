"""Factory Droid's bridge through the CLI, on real settings files, the real shim and a real daemon: install at
user and project scope and a byte-exact uninstall, the endpoint answering /droid/EVENT in Claude Code's format
naming Droid, `hookd import droid`, doctor's canary and its version check."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from hookd.agents import shim
from hookd.agents.droid import protocol
from tests.docs.test_samples import readme_hooks_file

from ..conftest import HOOKD, Env, write_script

# A Droid settings file as a user has it: its own model, its own hooks.
SETTINGS = (
    json.dumps(
        {
            "model": "custom:mine-0",
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Execute", "hooks": [{"type": "command", "command": '"$FACTORY_PROJECT_DIR"/check.sh', "timeout": 5}]}
                ],
                "SessionStart": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
            },
        },
        indent=2,
    )
    + "\n"
)


def pre_tool_use(project: Path, command: str) -> dict[str, Any]:
    return {
        "session_id": "s-droid",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(project),
        "permission_mode": "auto-low",
        "hook_event_name": "PreToolUse",
        "tool_name": "Execute",
        "tool_input": {"summary": "Run it", "command": command},
    }


def installed(settings: Path) -> dict[str, str]:
    doc = json.loads(settings.read_text())
    return {event: groups[-1]["hooks"][0]["command"] for event, groups in doc["hooks"].items()}


def run(command: str, data: dict[str, Any], env: Env, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` as Droid runs a command hook: through a shell, with FACTORY_PROJECT_DIR set."""
    environ = dict(env.env, FACTORY_PROJECT_DIR=str(cwd))
    return subprocess.run(["sh", "-c", command], input=json.dumps(data), env=environ, cwd=cwd, capture_output=True, text=True, timeout=60)


def test_install_at_user_and_project_scope_and_uninstall_byte_for_byte(env: Env, tmp_path: Path) -> None:
    if shim.compiler() is None:
        pytest.skip("no C compiler: the Python bridge is installed instead")
    user = env.home / ".factory" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text(SETTINGS)
    r = env.hookd("bridge", "install", "droid", "--timeout", "30")
    assert r.returncode == 0, r.stderr
    commands = installed(user)
    assert set(commands) == set(protocol.INSTALLED_EVENTS)
    for event, command in commands.items():
        words = shlex.split(command)
        assert Path(words[0]).name == shim.NAME and words[1] == event and words[-2:] == ["--agent", "droid"], command
        assert "--timeout 28" in command
    doc = json.loads(user.read_text())
    assert doc["hooks"]["PreToolUse"][0] == json.loads(SETTINGS)["hooks"]["PreToolUse"][0], "the user's own hook stays first"
    assert doc["hooks"]["PreToolUse"][-1]["hooks"][0]["timeout"] == 30
    assert env.hookd("bridge", "uninstall", "droid").returncode == 0
    assert user.read_text() == SETTINGS
    # The project's file, with the Python bridge; created by install, gone with uninstall.
    project = tmp_path / "p"
    project.mkdir()
    r = subprocess.run(
        [*HOOKD, "bridge", "install", "droid", "--project", "--no-shim"], cwd=project, env=env.env, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr
    assert all(" bridge droid --timeout 588 --event " in c for c in installed(project / ".factory" / "settings.json").values())
    r = subprocess.run([*HOOKD, "bridge", "uninstall", "droid", "--project"], cwd=project, env=env.env, capture_output=True, text=True)
    assert r.returncode == 0 and not (project / ".factory").exists(), r.stderr


def test_the_shim_and_the_python_bridge_answer_droid_in_claude_codes_format(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    settings = tmp_path / "settings.json"
    for how in ((), ("--no-shim",)):
        assert env.hookd("bridge", "install", "droid", "--settings", str(settings), *how).returncode == 0
        command = installed(settings)["PreToolUse"]
        r = run(command, pre_tool_use(tmp_path, "rm -rf /"), env, tmp_path)
        assert r.returncode == 0, r.stderr
        specific = json.loads(r.stdout)["hookSpecificOutput"]
        assert specific["permissionDecision"] == "deny" and specific["hookEventName"] == "PreToolUse", (how, r.stdout)
        r = run(command, pre_tool_use(tmp_path, "ls"), env, tmp_path)
        assert r.returncode == 0 and r.stdout.strip() == "", (how, r.stdout, r.stderr)
    tail = env.hookd("tail", "--no-follow", "--json", "--since", "0", "--point", "tool.approval.pre")
    events = [json.loads(line) for line in tail.stdout.splitlines() if '"decide"' in line]
    assert len(events) == 4
    for event in events:
        payload = event["payload"]
        assert payload["agent"] == "droid" and payload["agentToolName"] == "Execute" and payload["toolName"] == "execute_command"
        assert payload["args"]["summary"] == "Run it" and event["project"] == str(tmp_path)


def test_droid_hooks_import_with_droid_names_and_run_with_its_rules(env: Env, daemon_factory, tmp_path: Path) -> None:
    block = tmp_path / "check.sh"
    block.write_text('#!/bin/sh\ncase "$(cat)" in *"rm -rf"*) echo "no rm -rf (a Droid hook)" >&2; exit 2;; esac\nexit 0\n')
    block.chmod(0o755)
    settings = tmp_path / "settings.json"
    doc = json.loads(SETTINGS)
    doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = str(block)
    settings.write_text(json.dumps(doc, indent=2) + "\n")
    # hookd's own hooks in the file are not imported.
    assert env.hookd("bridge", "install", "droid", "--settings", str(settings), "--no-shim").returncode == 0
    out = tmp_path / "droid.yaml"
    r = env.hookd("import", "droid", str(settings), "-o", str(out), "--keep")
    assert r.returncode == 0, r.stderr
    hooks = yaml.safe_load(out.read_text())["hooks"]
    assert [h["name"] for h in hooks] == ["droid-pre-tool-use-1", "droid-session-start-1"]
    pre = hooks[0]
    assert pre["point"] == "tool.approval.pre" and pre["format"] == "claude-code" and pre["group"] == "droid"
    assert pre["match"] == {"toolName": "^(?:Execute)$"} and pre["timeout"] == 5
    assert hooks[1]["point"] == "agent.turn.start"
    # Run by the daemon on a Droid call: the Droid hook sees Droid's own input and its exit 2 denies.
    env.write_global_hooks(out.read_text())
    daemon_factory()
    command = installed(settings)["PreToolUse"]
    r = run(command, pre_tool_use(tmp_path, "rm -rf /tmp/x"), env, tmp_path)
    assert r.returncode == 0, (r.stdout, r.stderr)
    specific = json.loads(r.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny" and "no rm -rf (a Droid hook)" in specific["permissionDecisionReason"]


def test_doctor_sends_a_canary_through_droid_and_names_an_older_droid(env: Env, daemon_factory, tmp_path: Path) -> None:
    env.write_global_hooks(readme_hooks_file())
    daemon_factory()
    assert env.hookd("bridge", "install", "droid", "--fail-closed").returncode == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    droid = write_script(bin_dir / "droid", "#!/bin/sh\necho 0.225.2\n")
    environ = dict(env.env, PATH=f"{bin_dir}:{env.env['PATH']}")

    def checks() -> list[dict[str, Any]]:
        r = subprocess.run([*HOOKD, "doctor", "--json"], env=environ, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert r.stdout.strip(), r.stderr
        return [c for c in json.loads(r.stdout)["checks"] if c["name"] == "droid"]

    found = checks()
    [canary] = [c for c in found if "a canary tool call" in c["message"]]
    assert canary["status"] == "ok" and "guards in force: 'block-dangerous-commands'" in canary["message"], found
    assert not [c for c in found if c["status"] == "fail"], found
    droid.write_text("#!/bin/sh\necho 0.200.0\n")
    [older] = [c for c in checks() if "older than" in c["message"]]
    assert older["status"] == "fail" and "Factory Droid 0.200.0" in older["message"] and "0.225.2" in older["message"]
