"""`hookd import copilot`: a hook file's bash hooks as hookd hooks, moved out of Copilot's way only when that
takes nothing else with them (never a settings.json, whose inline hooks import but which stays where it is)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.agents import import_move
from hookd.agents.copilot import importer


def test_a_hook_file_s_bash_hooks_become_hookd_hooks_and_the_file_moves_aside_and_back(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    text = json.dumps(
        {
            "version": 1,
            "hooks": {
                "preToolUse": [{"type": "command", "bash": "./check.sh", "timeoutSec": 10, "matcher": "bash|edit"}],
                "sessionEnd": [{"type": "command", "bash": "./bye.sh"}],
            },
        }
    )
    path.write_text(text)
    result = importer.convert(importer.load(path.read_bytes(), path.name), path.name, "/bin/hookd")
    pre, end = result.hooks
    assert pre["point"] == "tool.approval.pre" and pre["type"] == "decision" and pre["timeout"] == 10
    assert pre["args"] == ["bridge", "run-hook", "copilot", "--event", "preToolUse", "--", "bash", "-c", "./check.sh"]
    assert pre["match"] == {"agentToolName": "^(?:bash|edit)$"} and pre["group"] == "copilot"
    assert end["point"] == "chat.finished" and end["type"] == "observer" and end["timeout"] == importer.DEFAULT_TIMEOUT
    importer.move(str(path), result)
    assert not path.exists() and (tmp_path / ("mine.json" + import_move.SAVED)).read_text() == text
    importer.undo(str(path))
    assert path.read_text() == text


def test_a_settings_file_s_inline_hooks_import_but_the_settings_file_never_moves(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = json.dumps({"model": "m", "hooks": {"preToolUse": [{"type": "command", "bash": "./check.sh"}]}})
    path.write_text(text)
    result = importer.convert(importer.load(path.read_bytes(), path.name), path.name, "/bin/hookd")
    assert [h["name"] for h in result.hooks] == ["copilot-pre-tool-use-1"]
    with pytest.raises(import_move.MoveError, match="--keep"):
        importer.move(str(path), result)
    assert path.read_text() == text
