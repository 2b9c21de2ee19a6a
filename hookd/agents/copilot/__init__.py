"""The GitHub Copilot CLI bridge: Copilot's command hooks (`~/.copilot/hooks/*.json`) forwarded to hookd through the shim."""
