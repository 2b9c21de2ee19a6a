"""A Gemini CLI hook on an event `hookd bridge install gemini` leaves out imports with a note saying how it will run."""

from __future__ import annotations

from hookd.agents.gemini import importer, protocol


def test_a_hook_on_an_event_fired_every_model_request_imports_with_a_note() -> None:
    settings = {
        "hooks": {
            "BeforeModel": [{"hooks": [{"type": "command", "command": "./model-guard.sh"}]}],
            "BeforeTool": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./tool-guard.sh"}]}],
        }
    }
    result = importer.convert_gemini(settings, "settings.json", hookd="/opt/hookd")
    assert [h["name"] for h in result.hooks] == ["gemini-before-model-1", "gemini-before-tool-1"]
    assert result.hooks[0]["point"] == "custom.gemini.BeforeModel"
    [note] = result.notes
    assert note.startswith("gemini-before-model-1: Gemini CLI fires BeforeModel before every model request") and "--all-events" in note
    assert "BeforeModel" not in protocol.INSTALLED_EVENTS and "BeforeModel" in protocol.ALL_EVENTS
