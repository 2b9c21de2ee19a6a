"""`hookd import codex`: Codex command hooks (config.toml or hooks.json) as hookd hooks, and Codex's own switch
(`[hooks.state."KEY"] enabled = false`) turned off for each imported hook, the user's bytes kept."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from hookd.agents.codex import importer

CONFIG = """\
model = "gpt-5.5"

[[hooks.PreToolUse]]
matcher = "Bash"

[[hooks.PreToolUse.hooks]]
type = "command"
command = "python3 ~/.codex/hooks/check.py"
timeout = 30

[[hooks.PreToolUse.hooks]]
type = "prompt"

[[hooks.SessionStart]]
matcher = "startup|resume"

[[hooks.SessionStart.hooks]]
type = "command"
command = "~/.codex/hooks/context.sh"

[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "notify-send done"
async = true

[[hooks.SessionEnd]]
[[hooks.SessionEnd.hooks]]
type = "command"
command = "cleanup"
timeout = 60

[[hooks.PostToolUse]]
[[hooks.PostToolUse.hooks]]
type = "command"
command = "/usr/bin/hookd bridge codex"
timeout = 600

[hooks.state."/home/u/.codex/config.toml:pre_tool_use:0:0"]
trusted_hash = "sha256:00"
"""


def test_each_command_hook_lands_on_its_point_with_codex_rules() -> None:
    result = importer.convert(tomllib.loads(CONFIG), "config.toml")
    by_name = {h["name"]: h for h in result.hooks}
    assert list(by_name) == ["codex-pre-tool-use-1", "codex-session-start-1", "codex-stop-1", "codex-session-end-1"]
    pre = by_name["codex-pre-tool-use-1"]
    assert pre["point"] == "tool.approval.pre" and pre["type"] == "decision" and pre["format"] == "claude-code"
    assert pre["args"] == ["-c", "python3 ~/.codex/hooks/check.py"] and pre["timeout"] == 30
    assert pre["group"] == "codex" and pre["combine"] == "strictest"
    assert pre["match"] == {"toolName": "^(?:Bash)$"}
    start = by_name["codex-session-start-1"]
    assert start["point"] == "agent.turn.start" and start["match"] == {"source": "^(?:startup|resume)$"} and start["timeout"] == 600
    assert by_name["codex-stop-1"]["type"] == "observer"  # async in Codex: it cannot decide
    assert by_name["codex-session-end-1"]["timeout"] == 3  # Codex clamps SessionEnd hooks to 3 s
    assert by_name["codex-session-end-1"]["point"] == "chat.finished"
    # The prompt handler stays in Codex; the bridge's own hook and the trust records are not hooks to import.
    assert any("'prompt' handler was not imported" in n for n in result.notes)
    assert result.taken == [("PreToolUse", 0, 0), ("SessionStart", 0, 0), ("Stop", 0, 0), ("SessionEnd", 0, 0)]


def test_hooks_json_reads_the_same() -> None:
    doc = importer.load(json.dumps(tomllib.loads(CONFIG)).encode(), "hooks.json")
    assert len(importer.convert(doc, "hooks.json").hooks) == 4


@pytest.mark.parametrize(
    ("data", "name"), [(b"model = ", "config.toml"), (b"{", "hooks.json"), (b"\xff", "config.toml"), (b"[1]", "hooks.json")]
)
def test_unreadable_files_are_reported(data: bytes, name: str) -> None:
    with pytest.raises(importer.ImportFileError):
        importer.load(data, name)


def test_imported_hooks_are_turned_off_in_codex_and_undo_gives_the_bytes_back(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    text = CONFIG.replace("/home/u/.codex/config.toml", str(path))
    path.write_text(text)
    result = importer.convert(tomllib.loads(text), "config.toml")
    saved, notes = importer.move_toml(str(path), text.encode(), result.taken, None, "")
    assert notes == []
    state = tomllib.loads(path.read_text())["hooks"]["state"]
    for event, gi, hi in result.taken:
        snake = {"PreToolUse": "pre_tool_use", "SessionStart": "session_start", "Stop": "stop", "SessionEnd": "session_end"}[event]
        assert state[f"{path}:{snake}:{gi}:{hi}"]["enabled"] is False
    # The existing trust record got the line under its header; the hash is kept.
    assert state[f"{path}:pre_tool_use:0:0"]["trusted_hash"] == "sha256:00"
    assert path.read_text().startswith(text.split("[hooks.state.")[0])
    from hookd.agents import import_move

    import_move.undo(str(path))
    assert path.read_text() == text and not Path(saved).exists()
