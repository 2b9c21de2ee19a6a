"""Factory Droid: Claude Code-format command hooks in its settings.json, run through the shim."""
